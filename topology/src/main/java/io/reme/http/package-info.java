/**
 * The HTTP server under the API and {@code /metrics}: Jetty 12's core server with this project's
 * limits ({@link io.reme.http.HttpSettings}) and an error handler that answers every error Jetty
 * itself makes as JSON ({@link io.reme.http.JsonErrorHandler}). Routing and handlers live with the
 * domain ({@code io.reme.api}, {@code io.reme.prometheus}).
 */
package io.reme.http;
