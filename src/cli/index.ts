#!/usr/bin/env bun
import { takeInheritedFds } from "../recorder/inherited-fds.ts";

// Before any other module of derun runs (and might open a file): which descriptors are the caller's.
takeInheritedFds();
const { runCli } = await import("./main.ts");
await runCli(process.argv.slice(2));
