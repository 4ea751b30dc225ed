// @vitest-environment happy-dom
// @vitest-environment-options {"happyDOM":{"settings":{"disableJavaScriptFileLoading":true,"handleDisabledFileLoadingAsSuccess":true}}}
// The attribution script from source (widget/attribution), in happy-dom against a real server (issue #7).
import { sourceMode } from './attribution-harness.ts';
import { attributionSuite } from './attribution-suite.ts';

attributionSuite(sourceMode());
