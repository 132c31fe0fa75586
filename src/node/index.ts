export { nodeDocsAssets } from "./docs-assets";
export { type LingeringCloseOptions, lingeringClose } from "./lingering-close";
