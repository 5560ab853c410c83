"""The schedule feature above the engine: the supervisor's pass that fires due
ticks (`scheduler`), the per-workspace cap on enabled schedules (`quota`) and
the builder's preview endpoint (`preview_api`). The trigger node is a kind among
the others (flows/nodes/schedule.py) and the cron arithmetic is generic
(core/cron.py): both sit below the engine, which this package uses."""
