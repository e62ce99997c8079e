/**
 * The VictoriaLogs HTTP client: one place that knows the origin's endpoints, authenticates, scopes
 * every request to the caller's tenant, bounds it in time, and turns every origin failure (no
 * answer, an error status, a body that is not what the endpoint promises) into a Loki-shaped
 * 502/504 error that reveals neither credentials nor the origin's own error text.
 */
import { OriginError, RequestError } from "../core/errors";
import type { LogRow } from "../engine/types";
import type { Tenant } from "../core/tenant";
import type { TimeWindow } from "../core/time-window";
import { checkAnswer } from "./answers";
import { invalidAnswer, OriginDeadline } from "./deadline";
import { type ChunkReader, readLineBatches, readNdjson } from "./ndjson";
import { formatRFC3339Nano } from "./timefmt";
import { FieldPicker, RowScanner, type VLRow } from "./rows";
import { NotARow, type StatsTable } from "./stats-table";
import { readStatsAnswer } from "./stats-answer";
import { FieldDeriver, type DerivedFieldRules } from "../engine/derived-fields";
import { SubrequestBudget } from "./subrequest-budget";

export interface OriginConfig {
  /** Base URL without credentials. */
  baseUrl: string;
  /** Full Authorization header value, from a secret. */
  authorization?: string;
  timeoutMs: number;
  /** Told of every origin request this client makes, how long its answer took and its size (telemetry). */
  meter?: OriginMeter;
  /** Fields Loki's distributor would have added at ingest, added to log rows as they arrive. */
  derivedFields?: DerivedFieldRules;
}

/** Counts origin requests for telemetry: called once per request when its answer (or failure) arrives. */
export interface OriginMeter {
  (elapsedMs: number): void;
  /** Bytes of answer body received from the origin (or relayed by the coalescer). */
  received?: (bytes: number) => void;
}

export interface HitsResponse {
  hits: { fields: Record<string, string>; timestamps: string[]; values: number[]; total: number }[];
}

export interface ValuesResponse {
  values: { value: string; hits: number }[];
}

/**
 * One POST to a small-JSON endpoint, described by what identifies its answer: the cache layer keys
 * answers by these fields and ages them by `window`.
 */
export interface JsonRequest {
  path: string;
  /** Form fields in the order they are sent. */
  form: [string, string][];
  tenant: Tenant;
  window: TimeWindow;
  /** The caller keeps the answer itself (in pieces): the transport must not store it whole. */
  noStore?: boolean;
}

/** The origin's answer, whatever its status: the client alone turns statuses into errors. */
export interface JsonAnswer {
  status: number;
  body: string;
}

/** Performs a JsonRequest; throws only when no HTTP answer arrived (network failure, abort). */
export type JsonTransport = (req: JsonRequest, signal: AbortSignal) => Promise<JsonAnswer>;

/**
 * The direct transport: one fetch to the origin per request. A body that breaks off after the
 * headers is an invalid answer (502), unless `signal` ended it (the caller reports that itself).
 */
export function fetchJsonTransport(config: OriginConfig): JsonTransport {
  return async (req, signal) => {
    const body = new URLSearchParams(req.form);
    const started = performance.now();
    try {
      const res = await fetch(config.baseUrl + req.path, {
        method: "POST",
        body,
        headers: originHeaders(config, req.tenant),
        signal,
      });
      try {
        const bytes = await res.arrayBuffer();
        config.meter?.received?.(bytes.byteLength);
        return { status: res.status, body: utf8.decode(bytes) };
      } catch (err) {
        if (signal.aborted) throw err;
        throw invalidAnswer("the connection broke in the middle of the answer");
      }
    } finally {
      config.meter?.(performance.now() - started);
    }
  };
}

function originHeaders(config: OriginConfig, tenant: Tenant): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": "application/x-www-form-urlencoded",
    AccountID: String(tenant.accountId),
    ProjectID: String(tenant.projectId),
  };
  if (config.authorization) headers.Authorization = config.authorization;
  return headers;
}

export class OriginClient {
  protected readonly transport: JsonTransport;

  constructor(
    protected readonly config: OriginConfig,
    protected readonly tenant: Tenant,
    /** Aborted when the client goes away: every origin request it caused stops too. */
    protected readonly signal?: AbortSignal,
    /** How small-JSON requests reach the origin (directly by default; the cache layer wraps it). */
    transport?: JsonTransport,
    /**
     * The request's count of subrequests: streamed requests are counted here, small-JSON ones by
     * the transport (which knows when the cache answers instead). Planners read it to size windows.
     */
    readonly budget: SubrequestBudget = SubrequestBudget.unlimited(),
  ) {
    this.transport = transport ?? fetchJsonTransport(config);
  }

  /** The same client, bound to a narrower signal (a sub-window that may be abandoned early). */
  withSignal(signal: AbortSignal): OriginClient {
    const combined = this.narrowed(signal);
    if (combined === this.signal) return this;
    return new OriginClient(this.config, this.tenant, combined, this.transport, this.budget);
  }

  /** The signal of this client bound to `signal` too (a subclass builds its own client on it). */
  protected narrowed(signal: AbortSignal): AbortSignal {
    if (signal === this.signal || !this.signal) return signal;
    // Both signals stay in force: the sub-window may be abandoned, and the client may go away.
    return AbortSignal.any([this.signal, signal]);
  }

  /** The fields this client adds to log rows, which the planner must not look for at the origin. */
  get derivedFields(): DerivedFieldRules | undefined {
    return this.config.derivedFields;
  }

  get tenantKey(): string {
    return `${this.tenant.accountId}:${this.tenant.projectId}`;
  }

  /** Rows of a LogsQL query as parsed objects, streamed. `window` bounds the query exactly (start ≤ t < end). */
  async *query(logsql: string, window: TimeWindow): AsyncGenerator<VLRow> {
    const body = await this.queryBody(logsql, window);
    if (!body) return;
    // Only reading and parsing throw in here: a consumer's own error ends the loop with return().
    try {
      for await (const row of readNdjson(body)) yield asRow(row);
    } catch (err) {
      throw streamError(err);
    }
  }

  /**
   * Rows of a LogsQL query as parsed objects, in batches (the rows of one network chunk): for
   * queries whose rows are a few fields each, where one async step per row would cost more than
   * the row.
   */
  async *queryBatches(logsql: string, window: TimeWindow): AsyncGenerator<VLRow[]> {
    const body = await this.queryBody(logsql, window);
    if (!body) return;
    try {
      for await (const lines of readLineBatches(body)) {
        const rows = new Array<VLRow>(lines.length);
        for (let i = 0; i < lines.length; i++) rows[i] = asRow(JSON.parse(lines[i]!));
        yield rows;
      }
    } catch (err) {
      throw streamError(err);
    }
  }

  /**
   * The fields `names` of each row of a LogsQL query, in batches (the rows of one network chunk),
   * flat: row r's value of names[k] is at r·names.length + k ("" when absent). For rows of a few
   * fields that are read by the ten thousand, where an object per row costs more than its values.
   */
  async *queryPicked(logsql: string, window: TimeWindow, names: readonly string[]): AsyncGenerator<string[]> {
    const body = await this.queryBody(logsql, window);
    if (!body) return;
    const picker = new FieldPicker(names);
    try {
      for await (const lines of readLineBatches(body)) {
        const values = new Array<string>(lines.length * names.length);
        for (let i = 0; i < lines.length; i++) picker.pick(lines[i]!, values, i * names.length);
        yield values;
      }
    } catch (err) {
      throw streamError(err);
    }
  }

  /**
   * Log rows of a LogsQL query, streamed in batches (the rows of one network chunk): the hot path
   * of log queries and local metric evaluation, with no object per row besides the LogRow.
   * `derive: false` leaves out the derived fields, for a query whose answer cannot depend on them;
   * `levels: false` leaves `detected_level` to be added to the few rows that make the answer.
   */
  async *logRows(
    logsql: string,
    window: TimeWindow,
    { derive: deriveFields = true, levels = true } = {},
  ): AsyncGenerator<LogRow[]> {
    // `_stream_id` (48 hex digits, a tenth of a typical row) names the stream `_stream` already
    // spells out: not sent, it is neither carried nor read.
    const body = await this.queryBody(`${logsql} | delete _stream_id`, window);
    if (!body) return;
    const scanner = new RowScanner();
    const deriver = deriveFields && this.config.derivedFields && new FieldDeriver(this.config.derivedFields);
    const derive = deriver && deriver.active ? deriver : undefined;
    try {
      for await (const lines of readLineBatches(body)) {
        const rows = new Array<LogRow>(lines.length);
        for (let i = 0; i < lines.length; i++) {
          const row = scanner.scan(lines[i]!);
          rows[i] = derive ? derive.derive(row, levels) : row;
        }
        yield rows;
      }
    } catch (err) {
      throw streamError(err);
    }
  }

  private async queryBody(logsql: string, window: TimeWindow): Promise<ChunkReader | null> {
    return await this.post("/select/logsql/query", {
      query: `${timeFilter(window)} ${logsql}`,
      start: formatRFC3339Nano(window.start),
      end: formatRFC3339Nano(window.end),
    });
  }

  /** `noStore`: the answer must be the origin's current state (a live tail's counts), never cached. */
  async hits(
    logsql: string,
    window: TimeWindow,
    params: Record<string, string | string[]>,
    noStore = false,
  ): Promise<HitsResponse> {
    const form = {
      query: `${timeFilter(window)} ${logsql}`,
      start: formatRFC3339Nano(window.start),
      end: formatRFC3339Nano(window.end),
      ...params,
    };
    return (await this.postJson("/select/logsql/hits", window, form, noStore)) as HitsResponse;
  }

  /** field_names / field_values / stream_field_names / stream_field_values / streams. */
  async values(
    endpoint: "field_names" | "field_values" | "stream_field_names" | "stream_field_values" | "streams",
    logsql: string,
    window: TimeWindow,
    params: Record<string, string> = {},
  ): Promise<ValuesResponse> {
    return (await this.postJson(`/select/logsql/${endpoint}`, window, {
      query: `${timeFilter(window)} ${logsql}`,
      start: formatRFC3339Nano(window.start),
      end: formatRFC3339Nano(window.end),
      ...params,
    })) as ValuesResponse;
  }

  async statsQueryRange(logsql: string, window: TimeWindow, step: string): Promise<PromMatrixResponse> {
    return (await this.postJson("/select/logsql/stats_query_range", window, {
      query: `${timeFilter(window)} ${logsql}`,
      start: formatRFC3339Nano(window.start),
      end: formatRFC3339Nano(window.end),
      step,
    })) as PromMatrixResponse;
  }

  /**
   * Rows of a stats query (a small answer), through the JSON transport so that identical requests
   * from anywhere coalesce into one origin request. The caller caches the rows itself, by chunk.
   */
  async statsRows(logsql: string, window: TimeWindow): Promise<VLRow[]> {
    const form = {
      query: `${timeFilter(window)} ${logsql}`,
      start: formatRFC3339Nano(window.start),
      end: formatRFC3339Nano(window.end),
    };
    return (await this.postJson("/select/logsql/query", window, form, true)) as VLRow[];
  }

  /**
   * The same rows, added to `table` as their lines are read (stats-answer.ts: the answer is never
   * held as objects, nor parsed a second time to check it); `beforeRow` is called before each row is
   * added, and what it throws ends the reading and is thrown. With `untimed`, rows without `_time`
   * (those a `union` pipe appends) are put there instead (readStatsAnswer).
   */
  async readStatsRows(
    logsql: string,
    window: TimeWindow,
    table: StatsTable,
    beforeRow?: () => void,
    untimed?: VLRow[],
  ): Promise<void> {
    const path = "/select/logsql/query";
    const body = await this.postText(
      path,
      window,
      {
        query: `${timeFilter(window)} ${logsql}`,
        start: formatRFC3339Nano(window.start),
        end: formatRFC3339Nano(window.end),
      },
      true,
    );
    try {
      readStatsAnswer(body, table, beforeRow, untimed);
    } catch (err) {
      if (err instanceof SyntaxError) throw invalidAnswer(`a row that is not JSON from ${path}`);
      if (err instanceof NotARow) throw invalidAnswer(`${err.message} from ${path}`);
      throw err;
    }
  }

  /** A small answer, checked to be what `path` promises (origin/answers.ts) and parsed. */
  private async postJson(
    path: string,
    window: TimeWindow,
    form: Record<string, string | string[]>,
    noStore = false,
  ): Promise<unknown> {
    const checked = checkAnswer(path, await this.postText(path, window, form, noStore));
    if (!checked.ok) throw invalidAnswer(`${checked.problem} from ${path}`);
    return checked.value;
  }

  /** A small answer's text, once its status says it is one. */
  private async postText(
    path: string,
    window: TimeWindow,
    form: Record<string, string | string[]>,
    noStore = false,
  ): Promise<string> {
    const pairs: [string, string][] = [];
    for (const [k, v] of Object.entries(form)) {
      for (const item of Array.isArray(v) ? v : [v]) pairs.push([k, item]);
    }
    const deadline = new OriginDeadline(this.config.timeoutMs, this.signal);
    let answer: JsonAnswer;
    try {
      answer = await this.transport(
        { path, form: pairs, tenant: this.tenant, window, ...(noStore ? { noStore } : {}) },
        deadline.signal,
      );
    } catch (err) {
      // A layer that already knows what failed (a coalesced timeout) says so itself.
      if (err instanceof RequestError) throw err;
      throw deadline.connectError(err);
    } finally {
      deadline.end();
    }
    if (answer.status < 200 || answer.status > 299) throw originStatusError(answer.status);
    return answer.body;
  }

  /** The 2xx body of a streamed endpoint, guarded by the idle limit and mapped to Loki's errors. */
  private async post(path: string, form: Record<string, string | string[]>): Promise<ChunkReader | null> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) {
      for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
    }
    const headers = originHeaders(this.config, this.tenant);

    const deadline = new OriginDeadline(this.config.timeoutMs, this.signal);
    // Work abandoned before it reached the origin (a window the answer no longer needs) costs
    // neither a subrequest nor a place in the request's budget.
    if (this.signal?.aborted) {
      deadline.end();
      throw deadline.connectError(this.signal.reason);
    }
    try {
      this.budget.claimOrigin();
    } catch (err) {
      deadline.end();
      throw err;
    }
    let res: Response;
    const started = performance.now();
    try {
      res = await fetch(this.config.baseUrl + path, { method: "POST", body, headers, signal: deadline.signal });
    } catch (err) {
      deadline.end();
      throw deadline.connectError(err);
    } finally {
      this.config.meter?.(performance.now() - started);
    }
    if (res.ok && res.body) {
      deadline.clear();
      return counted(deadline.guard(res.body), this.config.meter?.received);
    }
    deadline.end();
    if (res.ok) return null;
    // The origin's error text is not ours to show: it may quote the query, internal addresses or a
    // proxy's page. Only the status goes to the client.
    await res.body?.cancel().catch(() => {});
    throw originStatusError(res.status);
  }
}

/** `reader`, telling `received` the size of each chunk as it is read. */
function counted(reader: ChunkReader, received: ((bytes: number) => void) | undefined): ChunkReader {
  if (!received) return reader;
  return {
    read: async () => {
      const chunk = await reader.read();
      if (!chunk.done) received(chunk.value.byteLength);
      return chunk;
    },
    cancel: (reason) => reader.cancel(reason),
  };
}

const utf8 = new TextDecoder();

/** A streamed body that could not be read or parsed to the end, as the Loki-facing error. */
function streamError(err: unknown): RequestError {
  if (err instanceof RequestError) return err;
  // Everything else thrown while reading is a parse failure: a line that is not JSON (a cut line,
  // a proxy's page) or a row of the wrong shape.
  return invalidAnswer("a row of the streamed answer is not valid JSON");
}

function originStatusError(status: number): OriginError {
  if (status === 401 || status === 403) {
    return new OriginError("origin-unavailable", `origin rejected the request's credentials (HTTP ${status})`, status);
  }
  if (status === 400 || status === 422) {
    // The origin could not run the LogsQL we planned: a translation defect, never the user's fault,
    // and never a reason to show the origin's message (it may quote other parts of the plan).
    return new OriginError("origin-unavailable", `origin rejected the planned query (HTTP ${status})`, status);
  }
  if (status === 504 || status === 408) {
    return new OriginError("origin-timeout", `origin timed out (HTTP ${status})`, status);
  }
  return new OriginError("origin-unavailable", `origin failed (HTTP ${status})`, status);
}

export interface PromMatrixResponse {
  status: string;
  data: {
    resultType: "matrix" | "vector";
    result: { metric: Record<string, string>; values?: [number, string][]; value?: [number, string] }[];
  };
}

/** `_time:[start, end)`: exact, unlike the `end` parameter which VictoriaLogs widens. */
/** A parsed NDJSON line as a row; anything but an object is a broken answer, never a made-up row. */
function asRow(value: unknown): VLRow {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("a row is not an object");
  return value as VLRow;
}

export function timeFilter(w: TimeWindow): string {
  return `_time:[${formatRFC3339Nano(w.start)}, ${formatRFC3339Nano(w.end)})`;
}
