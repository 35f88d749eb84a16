/**
 * The MCP server at {@code /mcp} ({@link io.reme.api.mcp.McpEndpoint}): the official SDK's
 * Streamable-HTTP transport, whose tools and resources ({@link io.reme.api.mcp.McpTools}) call the
 * HTTP API's services with the connection's caller.
 */
package io.reme.api.mcp;
