// Waiting for submitted work without blocking Node: one waiter thread per
// JS environment waits on fences in submission order and hands each result
// back to the main thread, where the promise is settled.
//
// A dedicated thread rather than libuv's pool: GPU work can take seconds,
// and parked pool threads would stall fs, dns and crypto work of the whole
// process; a persistent thread also costs far less per wait than a new one.
#pragma once
#include <napi.h>

#include <functional>
#include <memory>

#include "commands.hpp"

// Runs on the main thread once the fence has signalled; returns the value
// the promise resolves with (or throws to reject it).
using CompletionFn = std::function<Napi::Value(Napi::Env)>;

// Settles the returned promise when `batch` (already submitted) completes.
// `keepAlive` holds everything the GPU work uses until then; it is released
// on the main thread.
Napi::Promise waitAsync(Napi::Env env, std::shared_ptr<CommandBatch> batch, std::shared_ptr<void> keepAlive,
                        CompletionFn onComplete);
