/** Request bodies: JSON, YAML, or kubectl's protobuf, with the real server's 400/415 answers. */
import { load } from 'js-yaml';
import type { Obj } from './types.js';
import type { ResourceRequest, Target } from './objects.js';
import { ApiError, badRequest } from './status.js';
import { decodeK8sProtobuf, ProtobufError } from './protobuf.js';

export function contentType(req: ResourceRequest): string {
  return String(req.headers['content-type'] ?? 'application/json').split(';')[0]!.trim().toLowerCase();
}

/** The request body as an object (JSON or YAML), 400 on parse errors as the real server words them. */
export function parseBody(req: ResourceRequest, t: Target): Obj {
  const text = req.body.toString('utf8');
  const ct = contentType(req);
  let v: unknown;
  if (ct === 'application/yaml') {
    try {
      v = load(text);
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  } else if (ct === 'application/json' || ct === '' || ct === '*/*') {
    try {
      v = JSON.parse(text);
    } catch (e) {
      const msg = (e as Error).message;
      // create.go's transformDecodeError, with summarizeData(body, 30).
      const summary = text.length > 30 ? `${text.slice(0, 30)} ...` : text;
      throw badRequest(`the object provided is unrecognized (must be of type ${t.served.kind}): couldn't get version/kind; json parse error: ${msg} (${summary})`);
    }
  } else if (ct === 'application/vnd.kubernetes.protobuf') {
    try {
      v = decodeK8sProtobuf(req.body);
    } catch (e) {
      if (e instanceof ProtobufError) throw new ApiError(415, e.message, 'UnsupportedMediaType');
      throw badRequest(`error decoding protobuf: ${(e as Error).message}`);
    }
  } else {
    throw new ApiError(415, `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`, 'UnsupportedMediaType');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest(`the object provided is unrecognized (must be of type ${t.served.kind})`);
  return v as Obj;
}

