/** Token counting with a real BPE tokenizer (jtokkit), per content block. */
package io.reme.tokens;
