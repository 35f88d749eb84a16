package io.reme.api;

/**
 * A request body the API binds from JSON ({@link BodyBinder}): a record whose fields are the body's,
 * checked once, in {@link #validate}, right after binding and before any handler work.
 */
public interface RequestBody {
    /**
     * Checks what the field types alone cannot (ranges, required fields, cross-field rules).
     *
     * @throws ApiException 400 naming the field, with the route's error code
     */
    default void validate() {}
}
