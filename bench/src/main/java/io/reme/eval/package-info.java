/**
 * Search evaluation ({@code eval locomo}): evidence recall@k of the service's memory index on
 * LoCoMo-format data. Not part of the product jar.
 */
package io.reme.eval;
