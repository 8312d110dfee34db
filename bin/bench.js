#!/usr/bin/env node
import { main } from '../dist/bench/main.js';

process.exitCode = await main(process.argv);
