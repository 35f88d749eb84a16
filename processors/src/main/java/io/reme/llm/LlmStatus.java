package io.reme.llm;

/** How a request ended: {@code FAILED} only after the worker's retries are exhausted. */
public enum LlmStatus {
    OK,
    FAILED
}
