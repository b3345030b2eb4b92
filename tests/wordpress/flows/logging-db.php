<?php

/**
 * A test drop-in (wp-content/db.php of a WordPress the flows tools assemble; never shipped):
 * the database class of the run, subclassed to log every statement after core's `query`
 * filter — its flow label, time, result, error, insert id, affected rows and (for the differ)
 * the rows it read — as one JSON object a line in BERTH_FLOWS_LOG.
 *
 * wp-config.php of the run defines:
 *   BERTH_FLOWS_LOG      the jsonl file the statements are appended to
 *   BERTH_FLOWS_VALUE_LIMIT  optional: values longer are logged as md5:<hex>:<length> (256;
 *                        0 keeps whole values)
 *   BERTH_FLOWS_BACKEND  'mysql' (stock \wpdb on MariaDB) or 'pgsql' (Berth\Pg\Wpdb, the
 *                        Berth drop-in copied beside this file as berth-pgsql/)
 * The flow label is the request's X-Berth-Flow header (drive.py sends it) or, from the CLI,
 * the BERTH_FLOW environment variable; "unlabelled" otherwise.
 */

declare(strict_types=1);

trait BerthFlowsLogging
{

    public function query($query)
    {
        $start = hrtime(true);
        $result = parent::query($query);
        $ms = (hrtime(true) - $start) / 1e6;
        if ($this->last_query === null || $this->last_query === '') {
            return $result; // never reached the server (not ready, or filtered away)
        }
        $rows = null;
        if (!preg_match('/^\s*(insert|delete|update|replace|create|alter|truncate|drop)\s/i', $this->last_query)
            && $result !== false && is_array($this->last_result)) {
            $rows = [];
            foreach ($this->last_result as $row) {
                $values = [];
                foreach ((array) $row as $column => $value) {
                    $values[(string) $column] = self::loggedValue($value);
                }
                $rows[] = $values;
            }
        }
        $flow = $_SERVER['HTTP_X_BERTH_FLOW'] ?? getenv('BERTH_FLOW');
        $line = [
            'flow' => is_string($flow) && $flow !== '' ? $flow : 'unlabelled',
            'sql' => $this->last_query,
            'ms' => round($ms, 3),
            'result' => $result,
            'error' => $this->last_error !== '' ? $this->last_error : null,
            'insert_id' => (int) $this->insert_id,
            'rows_affected' => (int) $this->rows_affected,
            'rows' => $rows,
        ];
        $json = json_encode($line, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PARTIAL_OUTPUT_ON_ERROR);
        file_put_contents(BERTH_FLOWS_LOG, $json . "\n", FILE_APPEND | LOCK_EX);
        return $result;
    }

    private static function loggedValue($value): ?string
    {
        if ($value === null) {
            return null;
        }
        $text = (string) $value;
        // Longer values are logged as their md5 and length (BERTH_FLOWS_VALUE_LIMIT, 0 = keep
        // all): the corpus stays small, the differ keeps whole values to normalise them.
        $limit = defined('BERTH_FLOWS_VALUE_LIMIT') ? (int) BERTH_FLOWS_VALUE_LIMIT : 256;
        if ($limit === 0 || strlen($text) <= $limit) {
            return $text;
        }
        return 'md5:' . md5($text) . ':' . strlen($text);
    }
}

if (defined('BERTH_FLOWS_BACKEND') && BERTH_FLOWS_BACKEND === 'pgsql') {
    require_once __DIR__ . '/berth-pgsql/autoload.php';

    final class BerthFlowsWpdb extends Berth\Pg\Wpdb
    {
        use BerthFlowsLogging;
    }
} else {
    final class BerthFlowsWpdb extends wpdb
    {
        use BerthFlowsLogging;
    }
}

// require_wp_db() declares $wpdb global before it loads this file.
$wpdb = new BerthFlowsWpdb(
    defined('DB_USER') ? DB_USER : '',
    defined('DB_PASSWORD') ? DB_PASSWORD : '',
    defined('DB_NAME') ? DB_NAME : '',
    defined('DB_HOST') ? DB_HOST : ''
);
