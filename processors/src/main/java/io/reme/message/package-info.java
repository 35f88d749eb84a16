/**
 * The conversation message envelope: the normalised record every processor works on, its content
 * blocks, and the parser that turns producer JSON (OpenAI chat shape or block style) into it,
 * rejecting anything that must not reach state.
 */
package io.reme.message;
