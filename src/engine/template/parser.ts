/**
 * Parser for Go's text/template language: builds the syntax tree the compiler turns into closures.
 * Error messages follow Go's (`template: line:1: function "foo" not defined`), since Loki shows
 * them to users verbatim.
 */

import { TemplateParseError } from "./errors";
import { isKeyword, lex, type Token, type TokenType } from "./lexer";
import {
  parseFloat,
  parseIntLiteral,
  quote as goQuote,
  unquote as unquoteLiteral,
  unquoteChar,
} from "../../core/go/strconv";

export interface TextNode {
  kind: "text";
  pos: number;
  text: string;
}
export interface ActionNode {
  kind: "action";
  pos: number;
  line: number;
  pipe: PipeNode;
}
export interface BranchNode {
  kind: "if" | "with" | "range";
  pos: number;
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList: ListNode | null;
}
export interface LoopControlNode {
  kind: "break" | "continue";
  pos: number;
  line: number;
}
export interface TemplateCallNode {
  kind: "template";
  pos: number;
  line: number;
  name: string;
  pipe: PipeNode | null;
}
export interface ListNode {
  kind: "list";
  pos: number;
  nodes: Node[];
}
export type Node = TextNode | ActionNode | BranchNode | LoopControlNode | TemplateCallNode | ListNode;

export interface VariableNode {
  kind: "variable";
  pos: number;
  ident: string[];
  slot: number;
}
export interface PipeNode {
  kind: "pipe";
  pos: number;
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode {
  kind: "command";
  pos: number;
  args: ArgNode[];
}
export interface FieldNode {
  kind: "field";
  pos: number;
  ident: string[];
}
export interface IdentifierNode {
  kind: "identifier";
  pos: number;
  name: string;
}
export interface DotNode {
  kind: "dot";
  pos: number;
}
export interface NilNode {
  kind: "nil";
  pos: number;
}
export interface BoolNode {
  kind: "bool";
  pos: number;
  value: boolean;
}
export interface StringNode {
  kind: "string";
  pos: number;
  quoted: string;
  text: string;
}
export interface NumberNode {
  kind: "number";
  pos: number;
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int64: bigint;
  float64: number;
}
export interface ChainNode {
  kind: "chain";
  pos: number;
  node: ArgNode;
  field: string[];
}
export type ArgNode =
  | FieldNode
  | VariableNode
  | IdentifierNode
  | DotNode
  | NilNode
  | BoolNode
  | StringNode
  | NumberNode
  | PipeNode
  | ChainNode;

// ---------------------------------------------------------------------------------------------
// Canonical text of nodes, used in execution error messages ("executing "line" at <.foo>").

export function nodeString(n: ArgNode | CommandNode | Node): string {
  switch (n.kind) {
    case "field":
      return "." + n.ident.join(".");
    case "variable":
      return n.ident.join(".");
    case "identifier":
      return n.name;
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return n.value ? "true" : "false";
    case "string":
      return n.quoted;
    case "number":
      return n.text;
    case "chain": {
      const inner = n.node.kind === "pipe" ? "(" + nodeString(n.node) + ")" : nodeString(n.node);
      return inner + "." + n.field.join(".");
    }
    case "command":
      return n.args.map((a) => (a.kind === "pipe" ? "(" + nodeString(a) + ")" : nodeString(a))).join(" ");
    case "pipe": {
      let s = "";
      if (n.decl.length > 0) s = n.decl.map(nodeString).join(", ") + (n.isAssign ? " = " : " := ");
      return s + n.cmds.map(nodeString).join(" | ");
    }
    case "text":
      return JSON.stringify(n.text);
    case "action":
      return "{{" + nodeString(n.pipe) + "}}";
    case "list":
      return n.nodes.map(nodeString).join("");
    case "if":
    case "with":
    case "range": {
      let s = `{{${n.kind} ${nodeString(n.pipe)}}}${nodeString(n.list)}`;
      if (n.elseList) s += "{{else}}" + nodeString(n.elseList);
      return s + "{{end}}";
    }
    case "break":
    case "continue":
      return `{{${n.kind}}}`;
    case "template":
      return n.pipe
        ? `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}`
        : `{{template ${JSON.stringify(n.name)}}}`;
  }
}

// ---------------------------------------------------------------------------------------------

export interface ParsedTemplate {
  root: ListNode;
  /** Named templates from {{define}} and {{block}}, each with its own variable frame size. */
  defines: Map<string, { root: ListNode; slots: number }>;
  /** Variable slots the root needs (slot 0 is `$`). */
  slots: number;
}

interface ElseMarker {
  kind: "else";
  pos: number;
  line: number;
}
interface EndMarker {
  kind: "end";
  pos: number;
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;
  private current: Token;
  private vars: { name: string; slot: number }[] = [{ name: "$", slot: 0 }];
  private nextSlot = 1;
  private rangeDepth = 0;
  private actionLine = 0;
  readonly defines = new Map<string, { root: ListNode; slots: number }>();

  constructor(
    private readonly name: string,
    text: string,
    private readonly hasFunction: (name: string) => boolean,
  ) {
    this.tokens = lex(text);
    this.current = this.tokens[0]!;
  }

  private fail(msg: string): never {
    throw new TemplateParseError(`template: ${this.name}:${this.current.line}: ${msg}`);
  }

  private next(): Token {
    const t = this.tokens[this.i] ?? this.tokens[this.tokens.length - 1]!;
    if (this.i < this.tokens.length) this.i++;
    this.current = t;
    return t;
  }
  private backup(n = 1): void {
    this.i -= n;
  }
  private peek(): Token {
    return this.tokens[this.i] ?? this.tokens[this.tokens.length - 1]!;
  }
  private nextNonSpace(): Token {
    let t: Token;
    do t = this.next();
    while (t.type === "space");
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    // backing up over the token we just read; spaces before it stay consumed, as in Go
    return t;
  }

  private tokenString(t: Token): string {
    if (t.type === "eof") return "EOF";
    if (t.type === "error") return t.val;
    if (isKeyword(t.type)) return `<${t.val}>`;
    if ([...t.val].length > 10) return goQuote([...t.val].slice(0, 10).join("")) + "...";
    return goQuote(t.val);
  }

  private unexpected(t: Token, context: string): never {
    if (t.type === "error") {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== t.line) {
        extra = ` in action started at ${this.name}:${this.actionLine}`;
        if (t.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.fail(t.val + extra);
    }
    this.fail(`unexpected ${this.tokenString(t)} in ${context}`);
  }

  private expect(type: TokenType, context: string): Token {
    const t = this.nextNonSpace();
    if (t.type !== type) this.unexpected(t, context);
    return t;
  }

  parse(): ParsedTemplate {
    const root: ListNode = { kind: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().type !== "eof") {
      if (this.peek().type === "leftDelim") {
        const delim = this.next();
        const after = this.nextNonSpace();
        if (after.type === "define") {
          this.parseDefinition();
          continue;
        }
        // back up to the delimiter
        this.i = this.tokens.indexOf(delim);
      }
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") this.fail(`unexpected {{${n.kind}}}`);
      root.nodes.push(n);
    }
    return { root, defines: this.defines, slots: this.nextSlot };
  }

  /** {{define "name"}} ... {{end}}: a separate template with its own variables. */
  private parseDefinition(): void {
    const nameTok = this.nextNonSpace();
    if (nameTok.type !== "string" && nameTok.type !== "rawString") this.unexpected(nameTok, "define clause");
    const name = this.unquote(nameTok);
    this.expect("rightDelim", "define clause");
    const savedVars = this.vars;
    const savedSlot = this.nextSlot;
    this.vars = [{ name: "$", slot: 0 }];
    this.nextSlot = 1;
    const { list, next } = this.itemList();
    if (next.kind !== "end") this.fail(`unexpected {{else}} in define clause`);
    this.addDefine(name, list, this.nextSlot);
    this.vars = savedVars;
    this.nextSlot = savedSlot;
  }

  private addDefine(name: string, root: ListNode, slots: number): void {
    const existing = this.defines.get(name);
    // an empty body never replaces a non-empty one (Go's AddParseTree rule)
    if (existing && isEmptyList(root)) return;
    if (existing && !isEmptyList(existing.root)) this.fail(`template: multiple definition of template "${name}"`);
    this.defines.set(name, { root, slots });
  }

  private textOrAction(): Node | ElseMarker | EndMarker {
    const t = this.nextNonSpace();
    switch (t.type) {
      case "text":
        return { kind: "text", pos: t.pos, text: t.val };
      case "leftDelim": {
        this.actionLine = t.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
    }
    this.unexpected(t, "input");
  }

  private action(): Node | ElseMarker | EndMarker {
    const t = this.nextNonSpace();
    switch (t.type) {
      case "block":
        return this.blockControl();
      case "break":
      case "continue":
        return this.loopControl(t);
      case "else":
        return this.elseControl();
      case "end":
        return { kind: "end", pos: this.expect("rightDelim", "end").pos };
      case "if":
      case "with":
      case "range":
        return this.branchControl(t.type);
      case "template":
        return this.templateControl();
    }
    this.backup();
    const tok = this.peek();
    return { kind: "action", pos: tok.pos, line: tok.line, pipe: this.pipeline("command", "rightDelim") };
  }

  private loopControl(t: Token): LoopControlNode {
    const n = this.nextNonSpace();
    if (n.type !== "rightDelim") this.unexpected(n, `{{${t.type}}}`);
    if (this.rangeDepth === 0) this.fail(`{{${t.type}}} outside {{range}}`);
    return { kind: t.type as "break" | "continue", pos: t.pos, line: t.line };
  }

  private elseControl(): ElseMarker {
    const p = this.peekNonSpace();
    // "{{else if" and "{{else with" leave the keyword for the enclosing branch to parse
    if (p.type === "if" || p.type === "with") return { kind: "else", pos: p.pos, line: p.line };
    const t = this.expect("rightDelim", "else");
    return { kind: "else", pos: t.pos, line: t.line };
  }

  private branchControl(kind: "if" | "with" | "range"): BranchNode {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(kind, "rightDelim");
      if (kind === "range") this.rangeDepth++;
      const items = this.itemList();
      const list = items.list;
      let next = items.next;
      if (kind === "range") this.rangeDepth--;
      let elseList: ListNode | null = null;
      if (next.kind === "else") {
        if ((kind === "if" && this.peek().type === "if") || (kind === "with" && this.peek().type === "with")) {
          this.next();
          elseList = { kind: "list", pos: next.pos, nodes: [this.branchControl(kind)] };
        } else {
          ({ list: elseList, next } = this.itemList());
          if (next.kind !== "end") this.fail(`expected end; found {{else}}`);
        }
      }
      return { kind, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private templateControl(): TemplateCallNode {
    const t = this.nextNonSpace();
    const name = this.parseTemplateName(t, "template clause");
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().type !== "rightDelim") {
      this.backup();
      pipe = this.pipeline("template clause", "rightDelim");
    }
    return { kind: "template", pos: t.pos, line: t.line, name, pipe };
  }

  /** {{block "name" pipeline}} T1 {{end}}: defines "name" and calls it in place. */
  private blockControl(): TemplateCallNode {
    const t = this.nextNonSpace();
    const name = this.parseTemplateName(t, "block clause");
    const pipe = this.pipeline("block clause", "rightDelim");
    const savedVars = this.vars;
    const savedSlot = this.nextSlot;
    this.vars = [{ name: "$", slot: 0 }];
    this.nextSlot = 1;
    const { list, next } = this.itemList();
    if (next.kind !== "end") this.fail(`unexpected {{else}} in block clause`);
    this.addDefine(name, list, this.nextSlot);
    this.vars = savedVars;
    this.nextSlot = savedSlot;
    return { kind: "template", pos: t.pos, line: t.line, name, pipe };
  }

  private parseTemplateName(t: Token, context: string): string {
    if (t.type === "string" || t.type === "rawString") return this.unquote(t);
    this.unexpected(t, context);
  }

  private itemList(): { list: ListNode; next: ElseMarker | EndMarker } {
    const list: ListNode = { kind: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().type !== "eof") {
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") return { list, next: n };
      list.nodes.push(n);
    }
    this.fail("unexpected EOF");
  }

  private declare(tok: Token): VariableNode {
    const slot = this.nextSlot++;
    this.vars.push({ name: tok.val, slot });
    return { kind: "variable", pos: tok.pos, ident: [tok.val], slot };
  }

  private pipeline(context: string, end: TokenType): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = { kind: "pipe", pos: first.pos, line: first.line, isAssign: false, decl: [], cmds: [] };
    // declarations: "$x :=", "$x =", and in range "$i, $e :=". A declared name becomes visible
    // only after its pipeline runs, so `$x := $x | f` reads the outer $x: slots are given out last.
    const declared: Token[] = [];
    for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== "variable") break;
      this.next();
      const nx = this.peekNonSpace();
      if (nx.type === "assign" || nx.type === "declare") {
        pipe.isAssign = nx.type === "assign";
        this.nextNonSpace();
        if (pipe.isAssign) pipe.decl.push(this.useVar(v));
        else declared.push(v);
        break;
      }
      if (nx.type === "char" && nx.val === ",") {
        this.nextNonSpace();
        declared.push(v);
        if (context === "range" && declared.length < 2) {
          const p = this.peekNonSpace().type;
          if (p === "variable" || p === "rightDelim" || p === "rightParen") continue;
          this.fail("range can only initialize variables");
        }
        this.fail(`too many declarations in ${context}`);
      }
      // "$x" was an operand, not a declaration: rewind
      this.i = this.tokens.indexOf(v);
      break;
    }
    const finishDecls = (): void => {
      for (const v of declared) pipe.decl.push(this.declare(v));
    };
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        this.checkPipeline(pipe, context);
        finishDecls();
        return pipe;
      }
      switch (t.type) {
        case "bool":
        case "charConstant":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.fail(`missing value for ${context}`);
    for (let i = 1; i < pipe.cmds.length; i++) {
      const k = pipe.cmds[i]!.args[0]!.kind;
      if (k === "bool" || k === "dot" || k === "nil" || k === "number" || k === "string") {
        this.fail(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  private command(): CommandNode {
    const cmd: CommandNode = { kind: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.type === "space") continue;
      if (t.type === "rightDelim" || t.type === "rightParen") this.backup();
      else if (t.type !== "pipe") this.unexpected(t, "operand");
      break;
    }
    if (cmd.args.length === 0) this.fail("empty command");
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().type !== "field") return node;
    const fieldPos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().type === "field") fields.push(this.next().val.slice(1));
    switch (node.kind) {
      // Go gives the merged node the position of the first appended field
      case "field":
        return { kind: "field", pos: fieldPos, ident: [...node.ident, ...fields] };
      case "variable":
        return { ...node, pos: fieldPos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        this.fail(`unexpected . after term ${goQuote(nodeString(node))}`);
    }
    return { kind: "chain", pos: fieldPos, node, field: fields };
  }

  private term(): ArgNode | null {
    const t = this.nextNonSpace();
    switch (t.type) {
      case "identifier":
        if (!this.hasFunction(t.val)) this.fail(`function ${goQuote(t.val)} not defined`);
        return { kind: "identifier", pos: t.pos, name: t.val };
      case "dot":
        return { kind: "dot", pos: t.pos };
      case "nil":
        return { kind: "nil", pos: t.pos };
      case "variable":
        return this.useVar(t);
      case "field":
        return { kind: "field", pos: t.pos, ident: [t.val.slice(1)] };
      case "bool":
        return { kind: "bool", pos: t.pos, value: t.val === "true" };
      case "charConstant":
      case "number":
        return this.number(t);
      case "leftParen":
        return this.pipeline("parenthesized pipeline", "rightParen");
      case "string":
      case "rawString":
        return { kind: "string", pos: t.pos, quoted: t.val, text: this.unquote(t) };
    }
    this.backup();
    return null;
  }

  private unquote(t: Token): string {
    const s = unquoteLiteral(t.val);
    if (s === undefined) this.fail("invalid syntax");
    return s;
  }

  private useVar(t: Token): VariableNode {
    const name = t.val.split(".")[0]!;
    for (let k = this.vars.length - 1; k >= 0; k--) {
      const v = this.vars[k]!;
      if (v.name === name) return { kind: "variable", pos: t.pos, ident: [t.val], slot: v.slot };
    }
    this.fail(`undefined variable ${goQuote(name)}`);
  }

  private number(t: Token): NumberNode {
    const n: NumberNode = {
      kind: "number",
      pos: t.pos,
      text: t.val,
      isInt: false,
      isUint: false,
      isFloat: false,
      isComplex: false,
      int64: 0n,
      float64: 0,
    };
    if (t.type === "charConstant") {
      const c = unquoteChar(t.val.slice(1), "'");
      if (c === undefined || c.rest !== "'") this.fail(`malformed character constant: ${t.val}`);
      const r = c.code;
      return { ...n, isInt: true, isUint: true, isFloat: true, int64: BigInt(r), float64: r };
    }
    const text = t.val;
    if (text.endsWith("i")) {
      const f = parseFloatOrNull(text.slice(0, -1));
      if (f !== null) return { ...n, isComplex: true, isFloat: f === 0, isInt: f === 0, isUint: f === 0 };
    }
    const asInt = parseIntLiteral(text) ?? null;
    if (asInt !== null) {
      if (asInt >= 0n && asInt < 1n << 64n) n.isUint = true;
      if (asInt >= -(1n << 63n) && asInt < 1n << 63n) {
        n.isInt = true;
        n.int64 = asInt;
      }
      if (n.isInt || n.isUint) {
        n.isFloat = true;
        n.float64 = Number(asInt);
      }
    }
    if (!n.isInt && !n.isUint) {
      const f = parseFloatOrNull(text);
      if (f !== null) {
        if (!/[.eEpP]/.test(text)) this.fail(`integer overflow: ${goQuote(text)}`);
        n.isFloat = true;
        n.float64 = f;
        if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
          n.isInt = true;
          n.int64 = BigInt(f);
        }
        if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) n.isUint = true;
      }
    }
    if (!n.isInt && !n.isUint && !n.isFloat) this.fail(`illegal number syntax: ${goQuote(text)}`);
    return n;
  }
}

function isEmptyList(l: ListNode): boolean {
  return l.nodes.every((n) => n.kind === "text" && n.text.trim() === "");
}

export function parseTemplate(name: string, text: string, hasFunction: (name: string) => boolean): ParsedTemplate {
  return new Parser(name, text, hasFunction).parse();
}

/** strconv.ParseFloat's value, or null where Go reports a syntax or range error. */
function parseFloatOrNull(text: string): number | null {
  const f = parseFloat(text);
  return f.ok ? f.value : null;
}
