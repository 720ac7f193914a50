"""A workload for the sampler's demonstration and test: two threads, two hot functions."""
import sys
import threading
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def busy_loop(seconds):
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x += sum(i * i for i in range(200))
    return x


def sleeper(seconds):
    time.sleep(seconds)


def main(seconds):
    t = threading.Thread(target=sleeper, args=(seconds,), name="sleeper")
    t.start()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        fib(18)
        busy_loop(0.05)
    t.join()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0)
