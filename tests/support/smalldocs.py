"""Small documentation pages about made-up library parts, for tests whose generator (the
extractive one or a scripted teacher) needs a few plain sentences to work from."""

from __future__ import annotations

TOPICS = {
    "cache": "The cache stores the results of expensive calls. Each entry expires after the "
    "configured time to live. The clear function empties the whole cache at once. A full "
    "cache evicts the least recently used entry first.",
    "queue": "The queue hands work from producers to consumers. A bounded queue blocks the "
    "producer when it is full. Each item is delivered to exactly one consumer. Closing the "
    "queue wakes every waiting consumer.",
    "retry": "The retry helper calls a function again when it fails. The delay doubles after "
    "every failed attempt. A jitter of a quarter spreads the retries of many clients. After "
    "the last attempt the original error is raised again.",
    "pool": "The pool keeps a fixed number of worker threads alive. Submitting a task returns "
    "a future immediately. Shutting the pool down waits for running tasks to finish. An "
    "exception inside a task is stored in its future.",
    "wrongdoc": "This page documents the wrong way to lock a file on purpose. Two processes "
    "that write without a lock corrupt the file. The advisory lock protects only cooperating "
    "processes. Releasing the lock twice raises an error.",
}
# four more pages, for tests that want a few more Q&A
MORE_TOPICS = {
    "lock": "The lock lets one thread at a time into a critical section. Acquiring a held "
    "lock blocks until its owner releases it. A reentrant lock may be acquired again by its "
    "owner. Releasing a lock that is not held raises an error.",
    "timer": "The timer runs a function once after a delay. Cancelling the timer before it "
    "fires stops the call. The delay is measured in seconds as a float. A timer runs its "
    "function in a thread of its own.",
    "log": "The logger writes records to its handlers. Each record below the logger's level "
    "is dropped. A handler formats the record before writing it. Child loggers pass their "
    "records up to their parents.",
}
