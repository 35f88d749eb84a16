/**
 * Forgetting a user or a whole tenant: the erasure request that the API sends to every partition of
 * the session and diary processors, the report each partition keeps of what it removed, and the
 * store those reports are read from.
 */
package io.reme.erasure;
