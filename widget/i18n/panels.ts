// Imported by each lazy panel chunk: registers the secondary panels' English messages.
import { enPanels } from './en-panels.ts';
import { extend } from './index.ts';

extend('en', enPanels);
