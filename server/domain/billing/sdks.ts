// The billing systems' official SDKs (`stripe`, `@paddle/paddle-node-sdk`), loaded on first use and
// then kept. Loading both costs ≈ 2 s of CPU, which every process start (the server, each CLI
// command, each test file's server) paid before, whether or not any program had a billing connection.
import type StripeSdk from 'stripe';

type PaddleSdk = typeof import('@paddle/paddle-node-sdk');

let stripe: Promise<typeof StripeSdk> | undefined;
let paddle: Promise<PaddleSdk> | undefined;

/** The `stripe` package's default export (webhooks, errors, the client class). */
export function stripeSdk(): Promise<typeof StripeSdk> {
  return (stripe ??= import('stripe').then((m) => m.default));
}

/** The `@paddle/paddle-node-sdk` module. */
export function paddleSdk(): Promise<PaddleSdk> {
  return (paddle ??= import('@paddle/paddle-node-sdk'));
}
