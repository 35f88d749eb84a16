/**
 * What the MCP server at {@code /mcp} offers ({@link io.reme.api.mcp.McpTools}): tools and resources that call
 * the HTTP API's services with the connection's caller, which the edge's endpoint (the official SDK's
 * Streamable-HTTP transport) puts in each call's context.
 */
package io.reme.api.mcp;
