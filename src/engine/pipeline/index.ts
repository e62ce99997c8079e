/** The LogQL log pipeline with Loki's label model, and the sample extractor built on it. */
export { compileLogPipeline, type LogPipeline } from "./pipeline";
export { compileSampleExtractor, utf8ByteLength, type SampleExtractor } from "./extractor";
export { reorderLineFilters } from "./reorder";
export { lineFilterPredicate } from "./linefilter";
export { extractionGrouping, parserHints, type ParserHints } from "./parser-hints";
