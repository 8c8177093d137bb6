// Every error answer has the spec's shape: {"error": {"code": "SPEC_CODE", "message": "..."}}.
import type { ContentfulStatusCode } from "hono/utils/http-status";

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const errors = {
  validation: (message: string) => new ApiError(400, "VALIDATION_ERROR", message),
  notFound: (code: string, message: string) => new ApiError(404, code, message),
  agentNotFound: (id: number | string) => new ApiError(404, "AGENT_NOT_FOUND", `agent ${id} does not exist`),
  unauthorized: (code: string, message: string) => new ApiError(401, code, message),
  forbidden: (code: string, message: string) => new ApiError(403, code, message),
  conflict: (code: string, message: string) => new ApiError(409, code, message),
  unavailable: (code: string, message: string) => new ApiError(503, code, message),
};

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}
