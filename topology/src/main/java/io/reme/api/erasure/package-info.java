/**
 * Forgetting a user or a tenant: the signed erasure sent to every partition, and its status gathered
 * from their reports and the working directory ({@link io.reme.api.erasure.UserErasure}).
 */
package io.reme.api.erasure;
