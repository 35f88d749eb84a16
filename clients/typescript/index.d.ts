// Types of the ReMe Streams client (index.js). Field names are the API's (see /openapi.json).

export interface SourceSpan {
  session: string;
  firstMessageId: string;
  lastMessageId: string;
  messages: number;
  from: string;
  to: string;
}

export interface Memory {
  id: string;
  type: 'personal' | 'procedural' | 'tool' | 'diary_chunk' | 'dialog_chunk';
  target?: string;
  user?: string;
  session?: string;
  content: string;
  metadata: Record<string, string>;
  createdAt?: string;
  updatedAt?: string;
  conversationTime?: string;
  version: number;
  history?: {content: string; version: number; replacedAt: string}[];
  sources?: SourceSpan[];
}

export interface Hit {
  id: string;
  type: string;
  text: string;
  score: number;
  textScore?: number;
  vectorScore?: number;
  user?: string;
  session?: string;
  conversationTime?: string;
  metadata: Record<string, string>;
  target?: string;
  version?: number;
  sources?: SourceSpan[];
}

export interface SearchAnswer {
  hits: Hit[];
  partial?: boolean;
  missingPartitions?: number[];
  timings?: Record<string, number>;
}

/** A message as a platform sends it: the OpenAI chat shape or block content. */
export interface MessageIn {
  session: string;
  user: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  content?: string | unknown[] | null;
  id?: string;
  time?: string;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
  reasoning_content?: string;
}

export interface IngestAnswer {
  accepted: number;
  records: {partition: number; offset: number; key: string}[];
}

export interface Written {
  id: string;
  version: number;
  visible: boolean;
  memory: Memory;
}

export interface Page<T> {
  nextCursor?: string | null;
  partial?: boolean;
  missingPartitions?: number[];
  memories?: T[];
  sessions?: T[];
}

export interface ErasureStatus {
  erasureId: string;
  tenant: string;
  user?: string | null;
  requestedAt: string;
  complete: boolean;
  removed: Record<string, number>;
  status: string;
  [field: string]: unknown;
}

export interface ClientOptions {
  /** How long one request may take (default 10 s). */
  timeoutMs?: number;
  /** How often a 429 or 503 is sent again (default 5; 0: never). */
  maxRetries?: number;
  /** The longest wait between two tries, whatever Retry-After says (default 30 s). */
  maxWaitMs?: number;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
}

export class RemeError extends Error {
  readonly status: number;
  /** The API's error code, e.g. memory_not_found. */
  readonly code: string;
  readonly apiMessage: string;
  /** Seconds, from the Retry-After header. */
  readonly retryAfter?: number;
}
export class BadRequest extends RemeError {}
export class Unauthorized extends RemeError {}
export class NotFound extends RemeError {}
export class Conflict extends RemeError {}
export class PayloadTooLarge extends RemeError {}
export class RateLimited extends RemeError {}
export class Unavailable extends RemeError {}
export class ServerError extends RemeError {}

export class RemeClient {
  constructor(baseUrl: string, apiKey: string, options?: ClientOptions);
  sendMessages(messages: MessageIn[]): Promise<IngestAnswer>;
  context(session: string, options?: {format?: 'openai' | 'anthropic'; wholeWindow?: boolean}): Promise<Record<string, any>>;
  search(query: string, options?: {k?: number; types?: string[]; users?: string[]; sessions?: string[];
    since?: string; until?: string; minScore?: number}): Promise<SearchAnswer>;
  createMemory(content: string, options?: {type?: 'personal' | 'procedural' | 'tool'; user?: string;
    session?: string; target?: string; metadata?: Record<string, string>; conversationTime?: string}): Promise<Written>;
  getMemory(id: string): Promise<Memory>;
  updateMemory(id: string, changes: {content?: string; target?: string; metadata?: Record<string, string>;
    version?: number}): Promise<Written>;
  deleteMemory(id: string): Promise<Record<string, unknown>>;
  listMemories(filters?: {types?: string[]; users?: string[]; sort?: 'created' | 'updated' | 'conversation';
    order?: 'asc' | 'desc'; limit?: number; cursor?: string}): Promise<Page<Memory>>;
  iterMemories(filters?: {types?: string[]; users?: string[]; sort?: 'created' | 'updated' | 'conversation';
    order?: 'asc' | 'desc'; limit?: number}): AsyncGenerator<Memory>;
  listSessions(filters?: {user?: string; activeSince?: string; limit?: number; cursor?: string}): Promise<Page<Record<string, any>>>;
  iterSessions(filters?: {user?: string; activeSince?: string; limit?: number}): AsyncGenerator<Record<string, any>>;
  diary(user: string, document: string): Promise<Record<string, any>>;
  eraseUser(user: string): Promise<ErasureStatus>;
  userErasure(user: string): Promise<ErasureStatus>;
  eraseTenant(confirm: string): Promise<ErasureStatus>;
}
