// Canary secret values for the secrets scan (secret-scan.ts): recognisable strings the Worker never
// produces on its own. Plain JS so the Vite config that hands them to workerd can import it as is.
export const CANARIES = Object.freeze({
  ORIGIN_AUTH_HEADER: "Bearer cnry-originhdr-Q7m2Xv9KpL4w",
  AUTH_TOKEN: "cnry-authtoken-R8n3Yw0LqM5x",
  TENANT_A_TOKEN: "cnry-tenanta-S9p4Zx1MrN6y",
  TENANT_A_ROTATED: "cnry-tenanta2-T0q5Ay2NsP7z",
  TENANT_B_TOKEN: "cnry-tenantb-U1r6Bz3PtQ8a",
  ORIGIN_URL_PASSWORD: "cnry-urlpass-V2s7Ca4QuR9b",
});
