/**
 * The API's kernel, which the resources (one subpackage each) and the edge above them ({@code io.reme.edge})
 * share: who a request is from ({@link io.reme.api.Caller}), the one failure type
 * ({@link io.reme.api.ApiException}), and request bodies and query strings bound into records
 * ({@code BodyBinder}, {@code RequestBody}, {@code QueryString}, {@code Arg}). It imports nothing of the
 * packages that use it.
 */
package io.reme.api;
