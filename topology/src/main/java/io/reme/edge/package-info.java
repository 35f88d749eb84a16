/**
 * The HTTP edge of every instance, above the API's kernel ({@code io.reme.api}) and its resources: the
 * server ({@code ApiServer}: body reading without a thread, the bounded queue), the route table
 * ({@code RouteTable}) and a handler per route ({@code Endpoints}), each request and its answer
 * ({@code Exchange}, with the one error mapper), the one authentication step ({@code Authenticator}),
 * body reading ({@code BodyRead}), health, and the MCP server at {@code /mcp} ({@code McpEndpoint}), which
 * calls the same services. It only routes: what a route does lives in the resource packages.
 */
package io.reme.edge;
