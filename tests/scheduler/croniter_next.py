#!/usr/bin/python3
# Reads "<spec>\t<unix seconds>" lines and prints, for each, the next run after that time as
# python3-croniter computes it in UTC (Unix seconds), or "error <kind>" when croniter refuses
# the spec or finds no next run. The scheduler's cron test compares its own answers with these.
import datetime
import sys

from croniter import croniter

utc = datetime.timezone.utc
out = []
for line in sys.stdin:
    spec, start = line.rstrip("\n").split("\t")
    try:
        it = croniter(spec, datetime.datetime.fromtimestamp(int(start), tz=utc))
        out.append(str(int(it.get_next(float))))
    except Exception as e:  # the kind is what the test looks at
        out.append("error " + type(e).__name__)
sys.stdout.write("\n".join(out) + "\n")
