/**
 * Loki's template language for `line_format` and `label_format`: Go text/template semantics with
 * Loki's function set, executed against an entry's labels (a map[string]string, where a missing
 * label reads as "").
 *
 *   const t = compileTemplate(`{{ .level | upper }} {{ __line__ | trunc 20 }}`);
 *   t.execute({ labels, line, ts }); // throws TemplateExecError → Loki's __error__="TemplateFormatErr"
 *
 * Compile once per query, execute per entry: execution runs a tree of closures prepared here.
 */

import type { Labels } from "../types";
import { BUILTINS } from "./builtins";
import { TemplateExecError, TemplateParseError } from "./errors";
import { ExecState, compileProgram, type CompiledProgram } from "./exec";
import type { GoFunc } from "./funcs";
import { LOKI_FUNCS } from "./loki-funcs";
import { parseTemplate, type ArgNode, type ListNode, type Node, type PipeNode } from "./parser";
import { LabelMap } from "./values";

export { TemplateExecError, TemplateParseError };

export interface TemplateContext {
  labels: Labels;
  /** The current log line (`__line__`). */
  line: string;
  /** Entry timestamp in nanoseconds (`__timestamp__`). */
  ts: bigint;
}

export interface CompiledTemplate {
  /** Renders the template for one entry. Throws TemplateExecError with Go's message. */
  execute(ctx: TemplateContext): string;
  /** The template reads the log line (`__line__`). */
  readonly referencesLine: boolean;
  /** The template reads the entry timestamp (`__timestamp__`). */
  readonly usesTimestamp: boolean;
  /** Label names the template reads as `.name` (Loki's RequiredLabelNames). */
  readonly labelNames: readonly string[];
  /**
   * The template can make text much longer than the labels and line it reads (up to
   * TEMPLATE_OUTPUT_LIMIT for every entry): see mayAmplify.
   */
  readonly amplifies: boolean;
}

/** Every function a template may call: Go's builtins, then Loki's set (which takes precedence). */
const FUNCS: ReadonlyMap<string, GoFunc> = new Map([...BUILTINS, ...LOKI_FUNCS]);

/**
 * Parses and prepares a template. `name` is the Go template name that appears in error messages:
 * Loki names line_format templates "line" and label_format templates "label".
 * Throws TemplateParseError (`template: line:1: function "foo" not defined`).
 */
export function compileTemplate(text: string, name: "line" | "label" | string = "line"): CompiledTemplate {
  const parsed = parseTemplate(name, text, (fn) => FUNCS.has(fn));
  const program = compileProgram(parsed, FUNCS);
  const usage = scanUsage([parsed.root, ...[...parsed.defines.values()].map((d) => d.root)]);
  const simple = simpleForm(parsed.root, parsed.defines.size);
  return new Template(name, text, program, usage, simple);
}

type SimpleForm = { kind: "text"; text: string } | { kind: "label"; name: string } | null;

/** Templates that are plain text or a single `{{ .label }}` need no interpreter at all. */
function simpleForm(root: ListNode, defines: number): SimpleForm {
  if (defines > 0) return null;
  if (root.nodes.every((n) => n.kind === "text")) {
    return { kind: "text", text: root.nodes.map((n) => (n.kind === "text" ? n.text : "")).join("") };
  }
  if (root.nodes.length !== 1) return null;
  const n = root.nodes[0]!;
  if (n.kind !== "action" || n.pipe.decl.length > 0 || n.pipe.cmds.length !== 1) return null;
  const args = n.pipe.cmds[0]!.args;
  if (args.length !== 1 || args[0]!.kind !== "field" || args[0]!.ident.length !== 1) return null;
  return { kind: "label", name: args[0]!.ident[0]! };
}

class Template implements CompiledTemplate {
  private readonly state: ExecState;
  readonly referencesLine: boolean;
  readonly usesTimestamp: boolean;
  readonly labelNames: readonly string[];
  readonly amplifies: boolean;

  constructor(
    name: string,
    text: string,
    private readonly program: CompiledProgram,
    usage: Usage,
    private readonly simple: SimpleForm,
  ) {
    this.state = new ExecState(name, text);
    this.state.vars = new Array(program.slots);
    this.referencesLine = usage.line;
    this.usesTimestamp = usage.timestamp;
    this.labelNames = [...usage.labels];
    this.amplifies = mayAmplify(usage);
  }

  execute(ctx: TemplateContext): string {
    const simple = this.simple;
    if (simple !== null) return simple.kind === "text" ? simple.text : (ctx.labels[simple.name] ?? "");
    const st = this.state;
    // a template can be executed again from inside a call (never in practice): keep it re-entrant
    const saved = st.depth > 0 ? { out: st.out, line: st.line, ts: st.ts, vars: st.vars, node: st.node } : null;
    st.out = "";
    st.line = ctx.line;
    st.ts = ctx.ts;
    st.node = null;
    if (saved) st.vars = new Array(this.program.slots);
    try {
      this.program.run(st, new LabelMap(ctx.labels));
      return st.out;
    } finally {
      if (saved) Object.assign(st, saved);
      else st.out = "";
    }
  }
}

interface Usage {
  line: boolean;
  timestamp: boolean;
  labels: Set<string>;
  /** Calls a function whose result can be much longer than its arguments (see mayAmplify). */
  growingCall: boolean;
  /** Has a `range` or calls a defined template (repeats a body). */
  repeatsBody: boolean;
  /** Reads of a value (label, variable, `.`, the line), each counted. */
  reads: number;
}

/**
 * Functions whose result can be far longer than their arguments: a count or width multiplies the
 * text, or each match of a pattern gets a replacement of its own.
 */
const GROWING_FUNCS = new Set([
  "repeat",
  "indent",
  "nindent",
  "replace",
  "regexReplaceAll",
  "regexReplaceAllLiteral",
  "alignLeft",
  "alignRight",
]);

/** A width or precision of three digits or more, or one taken from an argument (`*`). */
const WIDE_VERB = /%[-+# 0]*(\*|\d{3,}|\d*\.(\*|\d{3,}))/;
/** More verbs than this in one printf format can copy an argument that many times. */
const MAX_PRINTF_VERBS = 8;

/** Reads beyond this many let a template copy a value that many times. */
const MAX_READS = 16;

/**
 * Whether the template can make, for one entry, text much longer than what it reads: a growing
 * function, a printf whose format is not a literal or has a wide verb or many verbs, a loop, a
 * call of a defined template, or many reads. Such a template can give every entry up to
 * TEMPLATE_OUTPUT_LIMIT characters, and the log query that runs it reserves memory for that
 * (src/exec/admission.ts). Others make at most a few times what the entry already holds.
 */
function mayAmplify(u: Usage): boolean {
  return u.growingCall || u.repeatsBody || u.reads > MAX_READS;
}

function growingPrintf(args: readonly ArgNode[]): boolean {
  const format = args[1];
  if (format?.kind !== "string") return true;
  return WIDE_VERB.test(format.text) || (format.text.match(/%[^%]/g)?.length ?? 0) > MAX_PRINTF_VERBS;
}

function scanUsage(roots: ListNode[]): Usage {
  const u: Usage = {
    line: false,
    timestamp: false,
    labels: new Set(),
    growingCall: false,
    repeatsBody: false,
    reads: 0,
  };
  const arg = (a: ArgNode): void => {
    switch (a.kind) {
      case "identifier":
        if (a.name === "__line__") {
          u.line = true;
          u.reads++;
        }
        if (a.name === "__timestamp__") u.timestamp = true;
        if (GROWING_FUNCS.has(a.name)) u.growingCall = true;
        break;
      case "field":
        u.labels.add(a.ident[0]!);
        u.reads++;
        break;
      case "variable":
      case "dot":
        u.reads++;
        break;
      case "pipe":
        pipe(a);
        break;
      case "chain":
        arg(a.node);
        break;
    }
  };
  const pipe = (p: PipeNode): void => {
    for (const c of p.cmds) {
      const first = c.args[0];
      if (first?.kind === "identifier" && first.name === "printf" && growingPrintf(c.args)) u.growingCall = true;
      for (const a of c.args) arg(a);
    }
  };
  const node = (n: Node): void => {
    switch (n.kind) {
      case "action":
        pipe(n.pipe);
        break;
      case "if":
      case "with":
      case "range":
        if (n.kind === "range") u.repeatsBody = true;
        pipe(n.pipe);
        node(n.list);
        if (n.elseList) node(n.elseList);
        break;
      case "list":
        n.nodes.forEach(node);
        break;
      case "template":
        u.repeatsBody = true;
        if (n.pipe) pipe(n.pipe);
        break;
    }
  };
  roots.forEach(node);
  return u;
}

/**
 * The label names Loki's parser hints count a template as reading (its `listNodeFields`): every
 * identifier of each `.a.b` field in the main template's actions, pipelines and branches, but not
 * fields reached through a variable, a chain or a `{{define}}`.
 */
export function templateFieldNames(text: string): string[] {
  const parsed = parseTemplate("hints", text, (fn) => FUNCS.has(fn));
  const names: string[] = [];
  const args = (list: readonly ArgNode[]): void => {
    for (const a of list) {
      if (a.kind === "field") names.push(...a.ident);
      else if (a.kind === "pipe") pipe(a);
    }
  };
  const pipe = (p: PipeNode): void => {
    for (const c of p.cmds) args(c.args);
  };
  const node = (n: Node): void => {
    switch (n.kind) {
      case "action":
        pipe(n.pipe);
        break;
      case "if":
      case "with":
      case "range":
        pipe(n.pipe);
        node(n.list);
        if (n.elseList) node(n.elseList);
        break;
      case "list":
        n.nodes.forEach(node);
        break;
    }
  };
  node(parsed.root);
  return names;
}
