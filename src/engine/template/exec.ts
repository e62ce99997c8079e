/**
 * Compiles a parsed template into a tree of closures, so that executing it once per log entry does
 * no parsing, lookups by name, or type dispatch that could be settled up front. The evaluation
 * order and the node reported in error messages follow Go's text/template executor.
 */

import { TemplateExecError } from "./errors";
import { FuncError, GO_TYPE_NAMES, TEMPLATE_OUTPUT_LIMIT, type CallEnv, type GoFunc, type ParamType } from "./funcs";
import { GoTime } from "./gotime";
import { TIME_METHODS } from "./time-methods";
import {
  nodeString,
  type ArgNode,
  type BranchNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type ListNode,
  type Node,
  type NumberNode,
  type ParsedTemplate,
  type PipeNode,
  type VariableNode,
} from "./parser";
import {
  GoInt,
  GoMap,
  GoSlice,
  LabelMap,
  compareGoStrings,
  goInt,
  isTrue,
  printValue,
  typeName,
  utf8Length,
  type GoValue,
} from "./values";

/** The node an error is reported at: its offset and its text as Go prints it. */
interface NodeRef {
  pos: number;
  ctx: string;
}

const MISSING: unique symbol = Symbol("missing");
type Final = GoValue | typeof MISSING;

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
type Control = typeof NORMAL | typeof BREAK | typeof CONTINUE;

const MAX_EXEC_DEPTH = 100000;

export class ExecState implements CallEnv {
  line = "";
  ts = 0n;
  out = "";
  node: NodeRef | null = null;
  vars: GoValue[] = [];
  depth = 0;
  constructor(
    readonly name: string,
    readonly text: string,
  ) {}

  at(n: NodeRef): void {
    this.node = n;
  }

  append(s: string): void {
    if (this.out.length + s.length > TEMPLATE_OUTPUT_LIMIT) {
      this.fail(`template output exceeds the limit of ${TEMPLATE_OUTPUT_LIMIT} characters per line`);
    }
    this.out += s;
  }

  fail(msg: string): never {
    if (this.node === null) throw new TemplateExecError(`template: ${this.name}: ${msg}`);
    const before = this.text.slice(0, this.node.pos);
    const nl = before.lastIndexOf("\n");
    const lineNum = 1 + (before.match(/\n/g)?.length ?? 0);
    const byteNum = utf8Length(nl < 0 ? before : before.slice(nl + 1));
    throw new TemplateExecError(
      `template: ${this.name}:${lineNum}:${byteNum}: executing ${JSON.stringify(this.name)} at <${this.node.ctx}>: ${msg}`,
    );
  }
}

type Exec = (st: ExecState, dot: GoValue) => Control;
type Eval = (st: ExecState, dot: GoValue) => GoValue;
type CmdEval = (st: ExecState, dot: GoValue, final: Final) => GoValue;

function ref(n: ArgNode | CommandNode | Node): NodeRef {
  return { pos: n.pos, ctx: nodeString(n) };
}

export interface CompiledProgram {
  run(st: ExecState, data: GoValue): void;
  slots: number;
}

export function compileProgram(parsed: ParsedTemplate, funcs: ReadonlyMap<string, GoFunc>): CompiledProgram {
  return new Compiler(parsed, funcs).program();
}

class Compiler {
  private readonly templates = new Map<string, { exec: Exec | null; slots: number }>();
  constructor(
    private readonly parsed: ParsedTemplate,
    private readonly funcs: ReadonlyMap<string, GoFunc>,
  ) {}

  program(): CompiledProgram {
    for (const [name, def] of this.parsed.defines) this.templates.set(name, { exec: null, slots: def.slots });
    for (const [name, def] of this.parsed.defines) this.templates.get(name)!.exec = this.list(def.root);
    const root = this.list(this.parsed.root);
    const slots = Math.max(this.parsed.slots, ...[...this.templates.values()].map((t) => t.slots));
    return {
      slots,
      run: (st, data) => {
        st.vars[0] = data;
        root(st, data);
      },
    };
  }

  private list(l: ListNode): Exec {
    const parts = l.nodes.map((n) => this.node(n));
    if (parts.length === 1) return parts[0]!;
    return (st, dot) => {
      for (let i = 0; i < parts.length; i++) {
        const c = parts[i]!(st, dot);
        if (c !== NORMAL) return c;
      }
      return NORMAL;
    };
  }

  private node(n: Node): Exec {
    switch (n.kind) {
      case "text": {
        const text = n.text;
        return (st) => {
          st.append(text);
          return NORMAL;
        };
      }
      case "action": {
        const pipe = this.pipeline(n.pipe);
        if (n.pipe.decl.length > 0) {
          return (st, dot) => {
            pipe(st, dot);
            return NORMAL;
          };
        }
        const at = ref(n);
        // the common `{{ .label }}` prints the label value directly
        const only = n.pipe.cmds.length === 1 && n.pipe.cmds[0]!.args.length === 1 ? n.pipe.cmds[0]!.args[0]! : null;
        if (only && only.kind === "field" && only.ident.length === 1) {
          const name = only.ident[0]!;
          return (st, dot) => {
            if (dot instanceof LabelMap) st.append(dot.labels[name] ?? "");
            else {
              const v = pipe(st, dot);
              st.at(at);
              st.append(printValue(v));
            }
            return NORMAL;
          };
        }
        return (st, dot) => {
          const v = pipe(st, dot);
          st.at(at);
          st.append(printValue(v));
          return NORMAL;
        };
      }
      case "if":
      case "with":
        return this.ifOrWith(n);
      case "range":
        return this.range(n);
      case "break":
        return () => BREAK;
      case "continue":
        return () => CONTINUE;
      case "list":
        return this.list(n);
      case "template":
        return this.templateCall(n.name, n.pipe, ref(n));
    }
  }

  private templateCall(name: string, pipeNode: PipeNode | null, at: NodeRef): Exec {
    const pipe = pipeNode ? this.pipeline(pipeNode) : null;
    return (st, dot) => {
      st.at(at);
      const t = this.templates.get(name);
      if (!t?.exec) return st.fail(`template ${JSON.stringify(name)} not defined`);
      const value = pipe ? pipe(st, dot) : undefined;
      if (st.depth >= MAX_EXEC_DEPTH) st.fail(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
      const savedVars = st.vars;
      st.vars = new Array<GoValue>(t.slots);
      st.vars[0] = value;
      st.depth++;
      try {
        t.exec!(st, value);
      } finally {
        st.depth--;
        st.vars = savedVars;
      }
      return NORMAL;
    };
  }

  private ifOrWith(n: BranchNode): Exec {
    const pipe = this.pipeline(n.pipe);
    const body = this.list(n.list);
    const elseBody = n.elseList ? this.list(n.elseList) : null;
    const isWith = n.kind === "with";
    return (st, dot) => {
      const v = pipe(st, dot);
      if (isTrue(v)) return body(st, isWith ? v : dot);
      if (elseBody) return elseBody(st, dot);
      return NORMAL;
    };
  }

  private range(n: BranchNode): Exec {
    const pipe = this.pipeline(n.pipe, true);
    const body = this.list(n.list);
    const elseBody = n.elseList ? this.list(n.elseList) : null;
    const decl = n.pipe.decl;
    const keySlot = decl.length === 2 ? decl[0]!.slot : -1;
    const elemSlot = decl.length === 2 ? decl[1]!.slot : decl.length === 1 ? decl[0]!.slot : -1;
    const one = (st: ExecState, key: GoValue, elem: GoValue): Control => {
      if (elemSlot >= 0) st.vars[elemSlot] = elem;
      if (keySlot >= 0) st.vars[keySlot] = key;
      return body(st, elem);
    };
    return (st, dot) => {
      // errors name the node evaluated last, as in Go (no st.at here)
      const v = pipe(st, dot);
      let count = 0;
      const each = (key: GoValue, elem: GoValue): boolean => {
        count++;
        const c = one(st, key, elem);
        return c === BREAK;
      };
      if (v instanceof GoSlice) {
        for (let i = 0; i < v.items.length; i++) if (each(goInt(i), v.items[i] ?? null)) break;
      } else if (v instanceof GoMap) {
        for (const k of [...v.entries.keys()].sort(compareGoStrings)) if (each(k, v.entries.get(k) ?? null)) break;
      } else if (v instanceof LabelMap) {
        for (const k of Object.keys(v.labels).sort(compareGoStrings)) if (each(k, v.labels[k]!)) break;
      } else if (v instanceof GoInt && v.type !== "uint8") {
        if (keySlot >= 0) st.fail("can't use " + v.v + " to iterate over more than one variable");
        for (let i = 0n; i < v.v; i++) if (each(new GoInt(v.type, i), new GoInt(v.type, i))) break;
      } else if (v === undefined || v === null) {
        // ranging over nothing runs the else branch
      } else {
        st.fail(`range can't iterate over ${printValue(v)}`);
      }
      if (count === 0 && elseBody) return elseBody(st, dot);
      return NORMAL;
    };
  }

  /** A pipeline; `forRange` leaves declarations to the range loop. */
  private pipeline(p: PipeNode, forRange = false): Eval {
    const at = ref(p);
    const cmds: CmdEval[] = p.cmds.map((c, i) => this.command(c, i > 0));
    const decl = forRange ? [] : p.decl.map((d: VariableNode) => d.slot);
    const single = cmds.length === 1 ? cmds[0]! : null;
    if (single && decl.length === 0) {
      return (st, dot) => {
        st.at(at);
        const v = single(st, dot, MISSING);
        return v === null ? undefined : v;
      };
    }
    return (st, dot) => {
      st.at(at);
      let v: Final = MISSING;
      for (let i = 0; i < cmds.length; i++) {
        v = cmds[i]!(st, dot, v);
        // an interface-typed result is unwrapped: a nil interface becomes "no value"
        if (v === null) v = undefined;
      }
      const value = v as GoValue;
      for (const slot of decl) st.vars[slot] = value;
      return value;
    };
  }

  private command(c: CommandNode, hasFinal: boolean): CmdEval {
    const first = c.args[0]!;
    switch (first.kind) {
      case "field":
        return this.fieldNode(first, c.args, hasFinal);
      case "chain":
        return this.chainNode(first, c.args, hasFinal);
      case "identifier":
        return this.functionCall(first.name, ref(first), c.args.slice(1), hasFinal, ref(c));
      case "pipe": {
        const pipe = this.pipeline(first);
        const check = this.notAFunction(c.args, hasFinal);
        return (st, dot) => {
          check(st);
          return pipe(st, dot);
        };
      }
      case "variable":
        return this.variableNode(first, c.args, hasFinal);
    }
    const at = ref(first);
    const check = this.notAFunction(c.args, hasFinal);
    switch (first.kind) {
      case "bool": {
        const b = first.value;
        return (st) => {
          st.at(at);
          check(st);
          return b;
        };
      }
      case "dot":
        return (st, dot) => {
          st.at(at);
          check(st);
          return dot;
        };
      case "nil":
        return (st): GoValue => {
          st.at(at);
          check(st);
          return st.fail("nil is not a command");
        };
      case "number": {
        const k = idealConstant(first);
        return (st) => {
          st.at(at);
          check(st);
          if (k.error) st.fail(k.error);
          return k.value;
        };
      }
      case "string": {
        const s = first.text;
        return (st) => {
          st.at(at);
          check(st);
          return s;
        };
      }
    }
  }

  private notAFunction(args: ArgNode[], hasFinal: boolean): (st: ExecState) => void {
    if (args.length > 1 || hasFinal) {
      const msg = `can't give argument to non-function ${nodeString(args[0]!)}`;
      return (st) => st.fail(msg);
    }
    return () => {};
  }

  private fieldNode(f: FieldNode, args: ArgNode[], hasFinal: boolean): CmdEval {
    const at = ref(f);
    const chain = this.fieldChain(f.ident, at, args, hasFinal);
    // the common `.label` on the label map
    if (f.ident.length === 1 && args.length <= 1 && !hasFinal) {
      const name = f.ident[0]!;
      return (st, dot, final) => {
        st.at(at);
        if (dot instanceof LabelMap) return dot.labels[name] ?? "";
        return chain(st, dot, dot, final);
      };
    }
    return (st, dot, final) => {
      st.at(at);
      return chain(st, dot, dot, final);
    };
  }

  private chainNode(c: ChainNode, args: ArgNode[], hasFinal: boolean): CmdEval {
    const at = ref(c);
    const chain = this.fieldChain(c.field, at, args, hasFinal);
    if (c.node.kind === "nil") {
      const msg = `indirection through explicit nil in ${nodeString(c)}`;
      return (st): GoValue => {
        st.at(at);
        return st.fail(msg);
      };
    }
    const base = this.arg(c.node, null);
    return (st, dot, final) => {
      st.at(at);
      const receiver = base(st, dot);
      return chain(st, dot, receiver, final);
    };
  }

  private variableNode(v: VariableNode, args: ArgNode[], hasFinal: boolean): CmdEval {
    const at = ref(v);
    const slot = v.slot;
    if (v.ident.length === 1) {
      const check = this.notAFunction(args, hasFinal);
      return (st) => {
        st.at(at);
        check(st);
        return st.vars[slot];
      };
    }
    const chain = this.fieldChain(v.ident.slice(1), at, args, hasFinal);
    return (st, dot, final) => {
      st.at(at);
      return chain(st, dot, st.vars[slot], final);
    };
  }

  /** Field and method lookups along `.a.b.c`; only the last one receives arguments. */
  private fieldChain(
    ident: string[],
    at: NodeRef,
    args: ArgNode[],
    hasFinal: boolean,
  ): (st: ExecState, dot: GoValue, receiver: GoValue, final: Final) => GoValue {
    const steps = ident.map((name, i) => {
      const last = i === ident.length - 1;
      return this.field(name, at, last ? args : [], last && hasFinal);
    });
    return (st, dot, receiver, final) => {
      let r = receiver;
      let fromMap = false;
      for (let i = 0; i < steps.length; i++) {
        const wasMap = r instanceof GoMap;
        r = steps[i]!(st, dot, r, i === steps.length - 1 ? final : MISSING, fromMap);
        fromMap = wasMap;
      }
      return r;
    };
  }

  private field(
    name: string,
    at: NodeRef,
    args: ArgNode[],
    hasFinal: boolean,
  ): (st: ExecState, dot: GoValue, receiver: GoValue, final: Final, fromMap: boolean) => GoValue {
    const hasArgs = args.length > 1 || hasFinal;
    const argsMsg = `${name} is not a method but has arguments`;
    const method = this.methodCall(name, at, args.slice(1), hasFinal);
    return (st, dot, receiver, final, fromMap) => {
      if (receiver === undefined) return undefined;
      if (receiver instanceof LabelMap) {
        if (hasArgs) st.fail(argsMsg);
        return receiver.labels[name] ?? "";
      }
      if (receiver instanceof GoMap) {
        if (hasArgs) st.fail(argsMsg);
        const v = receiver.entries.get(name);
        return v === undefined ? null : v;
      }
      if (receiver === null) st.fail(`nil pointer evaluating interface {}.${name}`);
      if (receiver instanceof GoTime && method) return method(st, dot, receiver, final);
      // a value read out of a map[string]interface{} still has the static type interface {}
      st.fail(`can't evaluate field ${name} in type ${fromMap ? "interface {}" : typeName(receiver)}`);
    };
  }

  /** A method of time.Time (`__timestamp__.Unix`), or null when the type has no such method. */
  private methodCall(
    name: string,
    at: NodeRef,
    args: ArgNode[],
    hasFinal: boolean,
  ): ((st: ExecState, dot: GoValue, receiver: GoTime, final: Final) => GoValue) | null {
    const m = TIME_METHODS.get(name);
    if (!m) return null;
    // the receiver is bound just before the call; argument evaluation cannot re-enter this node
    let recv: GoTime | null = null;
    const bound: GoFunc = { params: m.params, fn: (a, env) => m.fn(recv!, a, env) };
    if (m.variadic) bound.variadic = m.variadic;
    const call = this.callWith(bound, name, args, hasFinal, at);
    return (st, dot, receiver, final) => {
      recv = receiver;
      return call(st, dot, final);
    };
  }

  // -------------------------------------------------------------------------------------------
  // Function calls

  private functionCall(name: string, at: NodeRef, args: ArgNode[], hasFinal: boolean, cmdAt: NodeRef): CmdEval {
    const fn = this.funcs.get(name);
    if (!fn) {
      return (st): GoValue => {
        st.at(at);
        return st.fail(`${JSON.stringify(name)} is not a defined function`);
      };
    }
    const call = this.callWith(fn, name, args, hasFinal, cmdAt);
    return (st, dot, final) => {
      st.at(at);
      return call(st, dot, final);
    };
  }

  /** Go's evalCall: arity check, typed arguments, the piped value last, then the call. */
  private callWith(fn: GoFunc, name: string, args: ArgNode[], hasFinal: boolean, cmdAt: NodeRef): CmdEval {
    const numIn = args.length + (hasFinal ? 1 : 0);
    const numParams = fn.params.length + (fn.variadic ? 1 : 0);
    if (fn.variadic) {
      if (numIn < fn.params.length) {
        const msg = `wrong number of args for ${name}: want at least ${fn.params.length} got ${args.length}`;
        return (st): GoValue => st.fail(msg);
      }
    } else if (numIn !== numParams) {
      const msg = `wrong number of args for ${name}: want ${numParams} got ${numIn}`;
      return (st): GoValue => st.fail(msg);
    }
    const paramAt = (i: number): ParamType => (i < fn.params.length ? fn.params[i]! : fn.variadic!);
    // and/or evaluate their operands lazily and return one of them
    if (name === "and" || name === "or") {
      const evals = args.map((a) => this.arg(a, "value"));
      const isOr = name === "or";
      return (st, dot, final) => {
        let v: GoValue = undefined;
        for (let i = 0; i < evals.length; i++) {
          v = evals[i]!(st, dot);
          if (isTrue(v) === isOr) return v;
        }
        if (final !== MISSING) v = final;
        return v;
      };
    }
    const evals = args.map((a, i) => this.arg(a, paramAt(i)));
    const finalType = hasFinal ? paramAt(args.length) : null;
    const call = fn.fn;
    return (st, dot, final) => {
      const argv: GoValue[] = new Array<GoValue>(numIn);
      for (let i = 0; i < evals.length; i++) argv[i] = evals[i]!(st, dot);
      if (finalType !== null) argv[evals.length] = validateType(st, final as GoValue, finalType);
      try {
        const result = call(argv, st);
        if (typeof result === "string" && result.length > TEMPLATE_OUTPUT_LIMIT) {
          throw new FuncError(`result exceeds the limit of ${TEMPLATE_OUTPUT_LIMIT} characters`);
        }
        return result;
      } catch (e) {
        if (e instanceof FuncError) {
          st.at(cmdAt);
          st.fail(`error calling ${name}: ${e.message}`);
        }
        throw e;
      }
    };
  }

  /** Go's evalArg: a literal must suit the parameter type; anything else is evaluated and checked. */
  private arg(n: ArgNode, type: ParamType | null): Eval {
    const at = ref(n);
    switch (n.kind) {
      case "dot":
        return (st, dot) => {
          st.at(at);
          return validateType(st, dot, type);
        };
      case "nil":
        if (type === "any") return (st) => (st.at(at), null);
        if (type === null || type === "value") return (st) => (st.at(at), undefined);
        return (st): GoValue => {
          st.at(at);
          return st.fail(`cannot assign nil to ${GO_TYPE_NAMES[type]}`);
        };
      case "field": {
        const cmd = this.fieldNode(n, [n], false);
        return (st, dot) => validateType(st, cmd(st, dot, MISSING), type);
      }
      case "variable": {
        const cmd = this.variableNode(n, [], false);
        return (st, dot) => validateType(st, cmd(st, dot, MISSING), type);
      }
      case "pipe": {
        const pipe = this.pipeline(n);
        return (st, dot) => {
          st.at(at);
          return validateType(st, pipe(st, dot), type);
        };
      }
      case "identifier": {
        const call = this.functionCall(n.name, at, [], false, at);
        return (st, dot) => validateType(st, call(st, dot, MISSING), type);
      }
      case "chain": {
        const cmd = this.chainNode(n, [n], false);
        return (st, dot) => validateType(st, cmd(st, dot, MISSING), type);
      }
    }
    // literals: checked against the parameter type when executed, as Go does
    const literal = literalArg(n, type);
    return (st) => {
      st.at(at);
      if (literal.error !== undefined) st.fail(literal.error);
      return literal.value;
    };
  }
}

/** Go's validateType: whether a computed value may be passed where `type` is expected. */
function validateType(st: ExecState, v: GoValue, type: ParamType | null): GoValue {
  if (type === null || type === "value") return v;
  if (v === undefined || v === null) {
    if (type === "any") return null;
    st.fail(`invalid value; expected ${GO_TYPE_NAMES[type]}`);
  }
  let ok: boolean;
  switch (type) {
    case "any":
      return v;
    case "string":
      ok = typeof v === "string";
      break;
    case "int":
      ok = v instanceof GoInt && v.type === "int";
      break;
    case "float64":
      ok = typeof v === "number";
      break;
    case "bool":
      ok = typeof v === "boolean";
      break;
    case "time":
      ok = v instanceof GoTime;
      break;
  }
  if (!ok) st.fail(`wrong type for value; expected ${GO_TYPE_NAMES[type]}; got ${typeName(v)}`);
  return v;
}

interface Literal {
  value: GoValue;
  error?: string;
}

function literalArg(n: ArgNode, type: ParamType | null): Literal {
  const s = nodeString(n);
  switch (type) {
    case null:
    case "any":
    case "value":
      switch (n.kind) {
        case "bool":
          return { value: n.value };
        case "string":
          return { value: n.text };
        case "number":
          return idealConstant(n);
      }
      return { value: undefined, error: `can't handle ${s} for arg of type interface {}` };
    case "bool":
      return n.kind === "bool" ? { value: n.value } : { value: undefined, error: `expected bool; found ${s}` };
    case "float64":
      return n.kind === "number" && n.isFloat
        ? { value: n.float64 }
        : { value: undefined, error: `expected float; found ${s}` };
    case "int":
      return n.kind === "number" && n.isInt
        ? { value: new GoInt("int", n.int64) }
        : { value: undefined, error: `expected integer; found ${s}` };
    case "string":
      return n.kind === "string" ? { value: n.text } : { value: undefined, error: `expected string; found ${s}` };
    case "time":
      return { value: undefined, error: `can't handle ${s} for arg of type time.Time` };
  }
}

/** A number literal where no type is imposed: int unless it is written as a float. */
function idealConstant(n: NumberNode): Literal {
  const text = n.text;
  const isHexInt = text.length > 2 && text[0] === "0" && (text[1] === "x" || text[1] === "X") && !/[pP]/.test(text);
  const isRune = text[0] === "'";
  if (n.isComplex) return { value: undefined, error: `complex numbers are not supported: ${text}` };
  if (n.isFloat && !isHexInt && !isRune && /[.eEpP]/.test(text)) return { value: n.float64 };
  if (n.isInt) return { value: new GoInt("int", n.int64) };
  if (n.isUint) return { value: undefined, error: `${text} overflows int` };
  return { value: undefined };
}
