/** `line_format` and `label_format`, executed by the Go-template engine. */
import type { LabelFormatOp } from "../../logql/ast";
import { compileTemplate } from "../template";
import { Category } from "./labels";
import type { Stage } from "./stage";

export const TEMPLATE_FORMAT_ERR = "TemplateFormatErr";

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A failing template keeps the line as it was and marks the entry TemplateFormatErr. */
export function lineFormatStage(text: string): Stage {
  const tmpl = compileTemplate(text);
  return (ts, line, b) => {
    try {
      return tmpl.execute({ labels: b.toMap(), line, ts });
    } catch (e) {
      b.err = TEMPLATE_FORMAT_ERR;
      b.errDetails = message(e);
      return line;
    }
  };
}

/**
 * Renames move the value (keeping its category) and remove the source; templates set a parsed
 * label. All templates of one stage see the labels as they were at its first template.
 */
export function labelFormatStage(ops: LabelFormatOp[]): Stage {
  const compiled = ops.map((op) => ({ op, tmpl: op.isTemplate ? compileTemplate(op.src, "label") : undefined }));
  return (ts, line, b) => {
    let snapshot: Record<string, string> | undefined;
    for (const { op, tmpl } of compiled) {
      if (tmpl === undefined) {
        const found = b.getWithCategory(op.src);
        if (found !== undefined) {
          b.set(found[1], op.dst, found[0]);
          // Loki sets the renamed label as parsed, so a later parser does not overwrite it.
          b.extracted.add(op.dst);
          b.del(op.src);
        }
        continue;
      }
      snapshot ??= b.toMap();
      try {
        b.set(Category.Parsed, op.dst, tmpl.execute({ labels: snapshot, line, ts }));
      } catch (e) {
        b.err = TEMPLATE_FORMAT_ERR;
        b.errDetails = message(e);
      }
    }
    return line;
  };
}
