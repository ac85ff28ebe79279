#!/usr/bin/env python3
"""The issue-8 payment workload (tests/bench/pay-*.json) written idiomatically in SimPy 3.

This is the peer that tests/bench/run measures idemsim against: the same model, the way a
user who picked SimPy would write it -- a process per client, a process per message in
flight (SimPy's "Event Latency" example), a process per request the server executes, and
`reply | env.timeout(...)` for "wait for the answer or give up". It reads the same scenario
file, so both simulators run on the same parameters, and follows idemsim's semantics
(docs/model.md; src/model/client.c, server.c, network.c):

- closed loop: think time U[min, max) before each payment, including the first; no payment
  starts after duration_ms;
- each attempt waits timeout_ms from its send; after attempt n times out the client waits
  min(base * factor^(n-1), max_ms) (no jitter) and sends attempt n+1 with the same per-click
  key; after max_attempts it gives up (the client "does not know");
- late_response "ignore": an answer is accepted only while its attempt's connection is open,
  from its send until its timeout; one arriving during the backoff, or for an earlier
  attempt, is dropped (as idemsim does);
- every message is lost with probability `loss`, else arrives after U[min, max) ms;
- the server has unbounded concurrency; with the key store (idempotent mode) a request whose
  key is live is answered at once (409 while processing, else the stored answer replayed),
  otherwise the key is reserved (expiring ttl_ms later) and the handler runs after
  U[min, max) ms service; a key past its TTL counts as absent; a sweep every
  cleanup_interval_ms frees expired rows;
- times are integer microseconds, rounded as idemsim rounds them (ms * 1000 + 0.5).

Random numbers come from Python's Mersenne Twister, one stream per mode: the runs agree
with idemsim in distribution, not draw for draw (idemsim hashes each message's identity).

Model events are counted as idemsim counts Metrics.events (one per event its queue pops):
operation start, message arrival (request or answer, accepted or not), attempt timeout that
fires, retry sent after a backoff, handler done, key-store sweep. SimPy's own scheduler
events -- every timeout, process start and resume, condition -- are reported separately
("scheduled"), read from the environment's event-id counter after the run.

Prints one JSON object: per mode the outcome counts, give-ups and events, and the totals.
"""
import argparse
import itertools
import json
import sys
import time
from random import Random

import simpy

MODES = ("at-most-once", "at-least-once", "idempotent")


def us(ms):
    """Milliseconds to integer microseconds, as idemsim's ms_to_us rounds them."""
    return int(ms * 1000.0 + 0.5)


class Params:
    """The fields of a pay-*.json scenario that this model implements; refuses the rest."""

    def __init__(self, path):
        with open(path) as file:
            scenario = json.load(file)
        (group,) = scenario["clients"]
        workload, retry = group["workload"], group["retry"]
        backoff = retry["backoff"]
        link = scenario["network"]["default"]
        server = scenario["server"]
        store = server.get("idempotency", {})
        checks = {
            "closed loop": workload.get("loop", "closed") == "closed",
            "uniform think time": workload["interval_ms"]["dist"] == "uniform",
            "uniform delay": link["delay_ms"]["dist"] == "uniform",
            "uniform service": server["service_ms"]["dist"] == "uniform",
            "no jitter": backoff.get("jitter") == "none",
            "per-click keys": group.get("key", "per-click") == "per-click",
            "unbounded workers": server.get("workers") == 0,
            "atomic store": store.get("reserve", "atomic") == "atomic",
            "Bernoulli loss": isinstance(link["loss"], (int, float)),
        }
        unsupported = [name for name, ok in checks.items() if not ok]
        if unsupported:
            sys.exit("pay_simpy.py: %s: this model needs %s" % (path, ", ".join(unsupported)))
        self.name = scenario["name"]
        self.seed = scenario.get("seed", 1)
        self.duration_us = us(scenario["duration_ms"])
        self.modes = scenario.get("modes", list(MODES))
        self.clients = group["count"]
        self.ops = workload["ops"]
        self.think_ms = (workload["interval_ms"]["min"], workload["interval_ms"]["max"])
        self.timeout_us = us(retry["timeout_ms"])
        self.max_attempts = retry["max_attempts"]
        self.base_ms, self.factor = backoff["base_ms"], backoff["factor"]
        self.max_ms = backoff["max_ms"]
        self.conflict_delay_us = us(retry.get("conflict_delay_ms", 500))
        self.loss = float(link["loss"])
        self.delay_ms = (link["delay_ms"]["min"], link["delay_ms"]["max"])
        self.service_ms = (server["service_ms"]["min"], server["service_ms"]["max"])
        self.ttl_us = us(store.get("ttl_ms", 86400000))
        self.cleanup_us = us(store.get("cleanup_interval_ms", 60000))

    def backoff_us(self, attempt):
        """The wait after attempt n timed out (no jitter)."""
        ceiling = self.base_ms
        for _ in range(1, attempt):
            if ceiling >= self.max_ms:
                break
            ceiling *= self.factor
        return us(min(ceiling, self.max_ms))


class Operation:
    __slots__ = ("effects", "belief")

    def __init__(self):
        self.effects = 0
        self.belief = None  # "succeeded", "failed" or "unknown"


class Request:
    __slots__ = ("operation", "attempt", "key", "client")

    def __init__(self, operation, attempt, key, client):
        self.operation, self.attempt, self.key, self.client = operation, attempt, key, client


class Response:
    __slots__ = ("operation", "attempt", "status")

    def __init__(self, request, status):
        self.operation, self.attempt, self.status = request.operation, request.attempt, status


class World:
    """One mode: the environment, the network, the server and its key store."""

    def __init__(self, params, mode, seed):
        self.env = simpy.Environment()
        self.params, self.mode = params, mode
        self.rng = Random(seed * 3 + MODES.index(mode))
        self.keyed = mode == "idempotent"
        self.max_attempts = 1 if mode == "at-most-once" else params.max_attempts
        self.store = {}  # key -> [processing, status, expires_us]
        self.events = 0  # model events, counted as idemsim counts them
        self.clients_running = params.clients
        self.operations = []
        self.replayed = 0

    def uniform_us(self, bounds):
        low, high = bounds
        return us(low + (high - low) * self.rng.random())

    # -------------------------------------------------------------- network

    def send(self, deliver, message):
        if self.rng.random() < self.params.loss:
            return
        self.env.process(self.carry(deliver, message))

    def carry(self, deliver, message):
        yield self.env.timeout(self.uniform_us(self.params.delay_ms))
        self.events += 1  # message arrives
        deliver(message)

    # -------------------------------------------------------------- server

    def receive_request(self, request):
        if self.keyed:
            row = self.store.get(request.key)
            if row is not None and self.env.now < row[2]:
                if row[0]:
                    status = 409
                else:
                    status = row[1]
                    self.replayed += 1
                self.send(request.client.receive, Response(request, status))
                return
            self.store[request.key] = [True, 0, self.env.now + self.params.ttl_us]
        self.env.process(self.execute(request))

    def execute(self, request):
        yield self.env.timeout(self.uniform_us(self.params.service_ms))
        self.events += 1  # handler done
        request.operation.effects += 1
        if self.keyed:
            row = self.store.get(request.key)
            if row is not None and self.env.now < row[2]:
                row[0], row[1] = False, 200
            else:
                self.store[request.key] = [False, 200, self.env.now + self.params.ttl_us]
        self.send(request.client.receive, Response(request, 200))

    def sweeper(self):
        while self.clients_running > 0:
            yield self.env.timeout(self.params.cleanup_us)
            self.events += 1  # sweep
            now = self.env.now
            for key in [key for key, row in self.store.items() if now >= row[2]]:
                del self.store[key]

    # -------------------------------------------------------------- run

    def run(self):
        for index in range(self.params.clients):
            self.env.process(Client(self, index).run())
        if self.keyed and self.params.cleanup_us > 0:
            self.env.process(self.sweeper())
        self.env.run()


class Client:
    """Pays `ops` times, one after another; each payment is a sequence of attempts."""

    def __init__(self, world, index):
        self.world, self.env = world, world.env
        self.index = index
        self.operation = None  # the payment in progress
        self.attempt = 0
        self.reply = None  # succeeds with the status of the current attempt's answer

    def receive(self, response):
        if response.operation is not self.operation or self.reply is None:
            return  # that payment already has its answer
        if response.attempt != self.attempt:
            return  # late: that attempt's connection is closed
        if not self.reply.triggered:
            self.reply.succeed(response.status)

    def run(self):
        world, params = self.world, self.world.params
        for number in range(params.ops):
            yield self.env.timeout(world.uniform_us(params.think_ms))
            if self.env.now > params.duration_us:
                break
            world.events += 1  # operation start
            operation = Operation()
            world.operations.append(operation)
            yield from self.pay(operation, key=(self.index, number))
        world.clients_running -= 1

    def pay(self, operation, key):
        world = self.world
        self.operation, self.attempt = operation, 0
        while True:
            self.attempt += 1
            self.reply = reply = self.env.event()
            world.send(world.receive_request, Request(operation, self.attempt, key, self))
            result = yield reply | self.env.timeout(world.params.timeout_us)
            if reply not in result:
                world.events += 1  # attempt timeout
                if self.attempt >= world.max_attempts:
                    break
                self.reply = None  # the connection is closed: a late answer finds no one
                yield self.env.timeout(world.params.backoff_us(self.attempt))
                world.events += 1  # retry after the backoff
                continue
            if reply.value == 409:  # still processing: wait, then retry
                if self.attempt >= world.max_attempts:
                    break
                yield self.env.timeout(world.params.conflict_delay_us)
                world.events += 1
                continue
            operation.belief = "succeeded"
            self.reply = None
            return
        operation.belief = "unknown"
        self.reply = None


def outcomes(world):
    counts = {"operations": 0, "ok": 0, "double": 0, "lost": 0, "phantom": 0, "give_up": 0}
    for operation in world.operations:
        counts["operations"] += 1
        counts["give_up"] += operation.belief == "unknown"
        if operation.effects >= 2:
            counts["double"] += 1
        elif operation.effects == 0:
            counts["lost"] += 1
        elif operation.belief == "succeeded":
            counts["ok"] += 1
        else:
            counts["phantom"] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", help="tests/bench/pay-*.json")
    parser.add_argument("--seed", type=int, help="instead of the scenario's seed")
    parser.add_argument("--mode", action="append", choices=MODES, help="only this mode")
    arguments = parser.parse_args()
    params = Params(arguments.scenario)
    seed = params.seed if arguments.seed is None else arguments.seed
    report = {"scenario": params.name, "simulator": "simpy " + simpy.__version__,
              "seed": seed, "modes": {}}
    started = time.monotonic()
    for mode in arguments.mode or params.modes:
        mode_started = time.monotonic()
        world = World(params, mode, seed)
        world.run()
        counts = outcomes(world)
        counts["events"] = world.events
        counts["scheduled"] = next(world.env._eid)  # SimPy's own event-id counter
        counts["wall_s"] = round(time.monotonic() - mode_started, 3)
        report["modes"][mode] = counts
    report["wall_s"] = round(time.monotonic() - started, 3)
    report["events"] = sum(m["events"] for m in report["modes"].values())
    json.dump(report, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
