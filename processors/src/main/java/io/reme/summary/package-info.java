/**
 * The structured summary that replaces compacted messages: its sections and the validation every
 * summary must pass before it is applied (by the worker, and again by the session processor).
 */
package io.reme.summary;
