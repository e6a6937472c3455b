"""The testbed: a scenario run by real Linux TCP in network namespaces.

``lfnlab testbed run SCENARIO.toml`` takes a scenario of the supported subset (two
hosts around one emulator node, one ``tcp_bulk`` flow; docs/testbed.md), builds three
network namespaces joined by veth pairs, relays the frames between them through
``lfnlab emu`` (the userspace WAN emulator of crates/lfnlab-emu) shaped like the
scenario's emulator node, runs iperf3 between the hosts, samples the kernel's TCP
state with ``ss``, and writes a result directory in the simulator's layout.

| File | Job |
|---|---|
| ``subset.py`` | checks a scenario is in the supported subset, gives a :class:`~.subset.Plan` |
| ``units.py`` | rates, sizes and times of a resolved scenario as numbers |
| ``registry.py`` | what a run created (namespaces, processes) and its removal on any exit |
| ``orphans.py`` | the namespaces a SIGKILLed run left, removed by the next run |
| ``lab.py`` | the namespaces, veth pairs, addresses, offloads and sysctls |
| ``relay.py`` | the relay process in the emulator namespace |
| ``iperf.py`` | the iperf3 server and client and their JSON |
| ``sampler.py`` | ``ss -tin`` in the sender namespace at 10 Hz |
| ``relay_trace.py`` | the relay's per-frame trace: time zero, window drops, per-bin tables |
| ``tables.py`` | the Parquet tables in the simulator's schemas |
| ``results.py`` | ``summary.json`` and the atomic write of the result directory |
| ``run.py`` | one run, start to finish |
| ``command.py``, ``emu_command.py`` | the ``lfnlab testbed`` and ``lfnlab emu`` verbs |
"""
