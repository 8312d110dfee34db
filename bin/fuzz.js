#!/usr/bin/env node
import { main } from '../dist/fuzz/main.js';

process.exitCode = await main(process.argv);
