// The attribution script's entry (built as a self-contained IIFE: dist/widget/attribution.js, also served as /growsurf.js).
import { start } from './start.ts';

start();
