/**
 * The HTTP API's edge (JSON under {@code /v1}) on every instance: {@link io.reme.api.ApiServer} (body
 * reading without a thread, the bounded queue, {@code /mcp}), the route table ({@code RouteTable}) and a
 * handler per route ({@code Endpoints}), each request and its answer ({@code Exchange}, with the one error
 * mapper), the one authentication step ({@link
 * io.reme.api.Authenticator}, yielding a {@link io.reme.api.Caller}), the one failure type ({@link
 * io.reme.api.ApiException}), request bodies and query strings bound into records, and health. The
 * resources it serves live in its subpackages, one per resource; the MCP server at {@code /mcp} calls
 * the same services.
 */
package io.reme.api;
