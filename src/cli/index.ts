#!/usr/bin/env bun
import { runCli } from "./main.ts";

await runCli(process.argv.slice(2));
