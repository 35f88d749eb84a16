/**
 * Context management: the per-session window in logged RocksDB stores (a small header plus one
 * entry per live message), the processors that append messages, plan compactions and apply LLM
 * results, the rules they share ({@code SessionState} and a class per job beside it), and the
 * read-only view served to the query API.
 */
package io.reme.session;
