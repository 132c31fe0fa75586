export {
  DOCS_FAVICON_FILE,
  DOCS_FAVICON_SVG,
  type DocsAssetFile,
  type DocsAssets,
  type DocsPage,
  type DocsPageOptions,
  docsAssetFiles,
  SWAGGER_UI_INIT_FILE,
  selfHostedAsset,
} from "./assets";
export { getReDocUI, getSwaggerUI } from "./from-url";
export { redocPage } from "./redoc";
export { scalarPage } from "./scalar";
export { swaggerUiInitScript, swaggerUiPage } from "./swagger-ui";
