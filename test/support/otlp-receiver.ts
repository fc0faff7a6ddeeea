import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as it arrived, decoded from OTLP protobuf or JSON into one shape. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** Start and end, in milliseconds since the epoch (from the nanoseconds sent). */
  startMs: number;
  endMs: number;
  events: Array<{ name: string; attributes: Record<string, unknown>; timeMs: number }>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

/** An OTLP/HTTP trace receiver on loopback that decodes every export it is sent. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every request received, with its path and content type. */
  requests: Array<{ path: string; contentType: string }>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', contentType });
      const body = Buffer.concat(chunks);
      if (contentType.includes('json')) {
        spans.push(...fromJson(JSON.parse(body.toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        spans.push(...fromProtobuf(body));
        // An empty ExportTraceServiceResponse encodes as zero bytes.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// --- OTLP/JSON (opentelemetry/proto JSON mapping: ids in hex, enums as numbers) ---

type JsonValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
};
type JsonKv = { key: string; value: JsonValue };

function jsonValue(v: JsonValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(jsonValue);
  return undefined;
}

const jsonAttrs = (kvs: JsonKv[] | undefined) =>
  Object.fromEntries((kvs ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

function fromJson(body: {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonKv[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, never>> }>;
  }>;
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        const span = s as unknown as {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: JsonKv[];
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
          events?: Array<{ name: string; attributes?: JsonKv[]; timeUnixNano: string | number }>;
          status?: { code?: number; message?: string };
        };
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: jsonAttrs(span.attributes),
          startMs: nanosToMs(span.startTimeUnixNano),
          endMs: nanosToMs(span.endTimeUnixNano),
          events: (span.events ?? []).map((e) => ({
            name: e.name,
            attributes: jsonAttrs(e.attributes),
            timeMs: nanosToMs(e.timeUnixNano),
          })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return out;
}

const nanosToMs = (nanos: string | number | bigint | undefined) => Number(BigInt(nanos ?? 0) / 1000n) / 1000;

// --- OTLP protobuf: a wire-format reader and the field numbers of opentelemetry/proto/trace/v1 ---

type Field = { no: number; wire: number; varint?: bigint; bytes?: Buffer };

/** Splits one protobuf message into its fields (varint, 64-bit, length-delimited, 32-bit). */
function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[at++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) out.push({ no, wire, varint: varint() });
    else if (wire === 1) {
      out.push({ no, wire, bytes: buf.subarray(at, at + 8) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ no, wire, bytes: buf.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ no, wire, bytes: buf.subarray(at, at + 4) });
      at += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
  return out;
}

const all = (fs: Field[], no: number) => fs.filter((f) => f.no === no);
const one = (fs: Field[], no: number) => fs.find((f) => f.no === no);
const text = (f: Field | undefined) => f?.bytes?.toString('utf8') ?? '';
const hex = (f: Field | undefined) => f?.bytes?.toString('hex') ?? '';

// AnyValue: 1 string, 2 bool, 3 int64, 4 double, 5 ArrayValue { 1 values }, 7 bytes.
function anyValue(buf: Buffer): unknown {
  const [f] = fields(buf);
  if (!f) return undefined;
  switch (f.no) {
    case 1:
      return text(f);
    case 2:
      return f.varint === 1n;
    case 3:
      return Number(BigInt.asIntN(64, f.varint ?? 0n));
    case 4:
      return f.bytes!.readDoubleLE(0);
    case 5:
      return all(fields(f.bytes!), 1).map((v) => anyValue(v.bytes!));
    default:
      return f.bytes;
  }
}

// KeyValue: 1 key, 2 value.
function attributes(list: Field[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map((kv) => {
      const f = fields(kv.bytes!);
      const value = one(f, 2);
      return [text(one(f, 1)), value ? anyValue(value.bytes!) : undefined];
    }),
  );
}

// ExportTraceServiceRequest { 1 ResourceSpans { 1 Resource { 1 attributes }, 2 ScopeSpans { 1 scope { 1 name }, 2 Span } } }
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of all(fields(body), 1)) {
    const rsf = fields(rs.bytes!);
    const resourceField = one(rsf, 1);
    const resource = resourceField ? attributes(all(fields(resourceField.bytes!), 1)) : {};
    for (const ss of all(rsf, 2)) {
      const ssf = fields(ss.bytes!);
      const scopeField = one(ssf, 1);
      const scope = scopeField ? text(one(fields(scopeField.bytes!), 1)) : '';
      for (const sp of all(ssf, 2)) out.push({ ...span(fields(sp.bytes!)), resource, scope });
    }
  }
  return out;
}

// Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 7 start and 8 end (fixed64 ns),
// 9 attributes, 11 events (Event: 1 time, 2 name, 3 attributes), 15 status (Status: 2 message, 3 code).
function span(f: Field[]): Omit<ReceivedSpan, 'resource' | 'scope'> {
  const statusField = one(f, 15);
  const status = statusField ? fields(statusField.bytes!) : [];
  return {
    traceId: hex(one(f, 1)),
    spanId: hex(one(f, 2)),
    parentSpanId: hex(one(f, 4)),
    name: text(one(f, 5)),
    kind: Number(one(f, 6)?.varint ?? 0n),
    attributes: attributes(all(f, 9)),
    startMs: nanosToMs(one(f, 7)?.bytes?.readBigUInt64LE(0)),
    endMs: nanosToMs(one(f, 8)?.bytes?.readBigUInt64LE(0)),
    events: all(f, 11).map((e) => {
      const ef = fields(e.bytes!);
      return {
        name: text(one(ef, 2)),
        attributes: attributes(all(ef, 3)),
        timeMs: nanosToMs(one(ef, 1)?.bytes?.readBigUInt64LE(0)),
      };
    }),
    status: { code: Number(one(status, 3)?.varint ?? 0n), message: text(one(status, 2)) },
  };
}
