// The Worker's entry (wrangler.toml `main`): the Hono app answers fetch.
export { default } from "./app";
