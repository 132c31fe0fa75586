export { nodeDocsAssets } from "./docs-assets";
