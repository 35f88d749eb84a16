/**
 * Tenants, their API keys and their policies as data: the records of the compacted {@code tenants}
 * topic and the global store every instance keeps of it ({@link TenantEntries}, {@link TenantsUpdater}).
 * Keys are held only as hashes.
 */
package io.reme.tenant;
