import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRequest, isLoopbackHost } from './request-guard.js';

const local = { host: '127.0.0.1', port: 8765 };

test('a loopback server answers its own Host only: DNS rebinding and other ports are 400', () => {
  assert.equal(checkRequest({ host: '127.0.0.1:8765' }, local), undefined);
  assert.equal(checkRequest({ host: 'localhost:8765' }, local), undefined);
  assert.equal(checkRequest({ host: 'evil.example:8765' }, local)?.status, 400);
  assert.equal(checkRequest({ host: '127.0.0.1:9999' }, local)?.status, 400);
  assert.equal(checkRequest({}, local)?.status, 400);
  // beyond loopback any Host is fine (the token guards it)
  assert.equal(checkRequest({ host: 'search.lan:8765' }, { host: '0.0.0.0', port: 8765 }), undefined);
});

test('a request from another origin is 403; the same origin passes', () => {
  assert.equal(checkRequest({ host: '127.0.0.1:8765', origin: 'https://evil.example' }, local)?.status, 403);
  assert.equal(checkRequest({ host: '127.0.0.1:8765', origin: 'null' }, local)?.status, 403);
  assert.equal(checkRequest({ host: '127.0.0.1:8765', origin: 'http://127.0.0.1:8765' }, local), undefined);
});

test('with a token, only its bearer passes', () => {
  const g = { host: '0.0.0.0', port: 1, token: 's3cret' };
  assert.equal(checkRequest({ host: 'x:1', authorization: 'Bearer s3cret' }, g), undefined);
  assert.equal(checkRequest({ host: 'x:1', authorization: 'Bearer s3cre' }, g)?.status, 401);
  assert.equal(checkRequest({ host: 'x:1' }, g)?.status, 401);
  assert.ok(isLoopbackHost('127.0.0.2') && isLoopbackHost('::1') && !isLoopbackHost('0.0.0.0'));
});
