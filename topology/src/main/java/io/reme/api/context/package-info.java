/**
 * A session's messages in and its context out: {@code POST /v1/messages} ({@link
 * io.reme.api.context.MessageIngest}), {@code GET /v1/sessions/{session}/context} from the session's
 * owner ({@link io.reme.api.context.ContextQueries}) in the shapes models take ({@link
 * io.reme.api.context.ReadyContext}), and the full text of truncated tool outputs ({@link
 * io.reme.api.context.ToolResults}).
 */
package io.reme.api.context;
