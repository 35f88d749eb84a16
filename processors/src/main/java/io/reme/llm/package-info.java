/**
 * The contract between the session processor and the LLM workers: requests on
 * {@code llm.requests} and results on {@code llm.results}, matched by request ID and epoch.
 */
package io.reme.llm;
