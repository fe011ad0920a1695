/**
 * Where WOTD_MIRROR=on looks for the snapshots (`<origin>/databases`). An explicitly set WOTD_SITE_URL wins: the
 * public deployment, and a self-hosted one run like it, publish them on the website's origin (wotd.site), not on the
 * API's (api.wotd.site), whose server answers 404 there. Without it, the service in use (WOTD_API_URL, or the
 * embedded one at the console) is asked at its own origin, as our `serve` publishes them beside its API; with
 * neither, the public site.
 */
export function mirrorSiteUrl(site: { url: string; set: boolean }, serviceUrl: string | undefined): string {
  if (site.set) return site.url;
  return serviceUrl ?? site.url;
}

/** Whether a setting was given a value (an empty one counts as not set, as for every setting). */
export function isSet(env: NodeJS.ProcessEnv, name: string): boolean {
  return (env[name]?.trim() ?? '') !== '';
}
