/**
 * The HTTP API (JSON under {@code /v1}) on every instance: bearer-token tenants, session context
 * through interactive queries with forwarding to the owning instance, message ingestion, health;
 * and the MCP server at {@code /mcp}, whose tools call the same query classes.
 */
package io.reme.query;
