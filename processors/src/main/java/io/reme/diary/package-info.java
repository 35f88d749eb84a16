/**
 * Diary documents ({@code memory/YYYY-MM-DD.md} and {@code MEMORY.md} per tenant and user) and the
 * single writer per document: edits carry the version they were based on and are applied only if
 * it is still current, so concurrent updates are re-read and retried instead of overwriting each other.
 */
package io.reme.diary;
