/** {@code GET /v1/sessions}: a tenant's sessions, newest activity first, over every partition. */
package io.reme.api.session;
