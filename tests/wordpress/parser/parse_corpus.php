<?php

/**
 * Parses every statement of the WordPress query corpus and prints how many parse and the
 * mean parse time per statement (µs), for the translator's cost benchmark.
 *
 * Usage: php parse_corpus.php [corpus.jsonl] [--repeat=N] [--failures]
 * (default corpus: tests/wordpress/data/wordpress-6.1.9-queries.jsonl; run PHP with
 * -d opcache.enable_cli=1 to measure as php-cgi runs with opcache)
 */

declare(strict_types=1);

require __DIR__ . '/../../../plugins/templates/wordpress/payload/wp-content/berth-pgsql/autoload.php';

$file = __DIR__ . '/../data/wordpress-6.1.9-queries.jsonl';
$repeat = 5;
$showFailures = false;
foreach (array_slice($argv, 1) as $arg) {
    if (str_starts_with($arg, '--repeat=')) {
        $repeat = max(1, (int) substr($arg, 9));
    } elseif ($arg === '--failures') {
        $showFailures = true;
    } else {
        $file = $arg;
    }
}
if (!is_file($file)) {
    $file = '/work/shared/data/wordpress-6.1.9-queries.jsonl';
}
$statements = [];
foreach (file($file, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
    $statements[] = json_decode($line, true, 512, JSON_THROW_ON_ERROR)['sql'];
}

$parser = new Berth\Pg\Parser();
$ok = 0;
$failures = [];
foreach ($statements as $sql) {
    try {
        $parser->parse($sql);
        $ok++;
    } catch (Berth\Pg\ParseError $e) {
        $failures[] = $e->getMessage() . "\n    in: " . substr($sql, 0, 300);
    }
}

$start = hrtime(true);
for ($r = 0; $r < $repeat; $r++) {
    foreach ($statements as $sql) {
        try {
            $parser->parse($sql);
        } catch (Berth\Pg\ParseError) {
        }
    }
}
$elapsed = (hrtime(true) - $start) / 1e3;
$count = count($statements);
printf("%d of %d statements parse\n", $ok, $count);
printf("mean parse time: %.1f µs per statement (%d passes)\n", $elapsed / ($count * $repeat), $repeat);
if ($showFailures) {
    foreach ($failures as $f) {
        echo $f, "\n";
    }
}
exit($ok === $count ? 0 : 1);
