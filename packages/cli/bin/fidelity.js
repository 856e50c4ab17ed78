#!/usr/bin/env node
// A plain-JS shim so the bin link exists before the first build.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2));
