<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\MysqlError;
use Berth\Pg\TranslateError;
use PHPUnit\Framework\TestCase;

/**
 * Every statement WordPress sent to MariaDB in the captured flows, replayed in order on a
 * real PostgreSQL in a project's own schema (a role that is no superuser): each translates;
 * each that MariaDB answered runs and gives MariaDB's outcome (wpdb's return value: rows of a
 * SELECT/SHOW/DESCRIBE, affected rows of INSERT/UPDATE/DELETE, ON DUPLICATE's 1/2/0); each
 * that MariaDB refused raises MysqlError with MariaDB's text.
 */
final class CorpusTest extends TestCase
{
    /** @return array<string, array{0: string}> */
    public static function corpora(): array
    {
        $files = [];
        foreach ([
            'shared capture (1,281 statements)' => '/work/shared/data/wordpress-6.1.9-queries.jsonl',
            'repository capture' => __DIR__ . '/../data/wordpress-6.1.9-queries.jsonl',
        ] as $name => $file) {
            if (is_file($file)) {
                $files[$name] = [$file];
            }
        }
        return $files;
    }

    /** @dataProvider corpora */
    public function testEveryStatementTranslatesRunsAndAnswersAsMariaDb(string $file): void
    {
        $db = ProjectSchema::create();
        $problems = [];
        $count = 0;
        $ran = 0;
        foreach (file($file, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $n => $line) {
            $entry = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
            $count++;
            $where = '#' . ($n + 1) . ' ' . substr(preg_replace('/\s+/', ' ', trim($entry['sql'])), 0, 160);
            try {
                $result = $db->query($entry['sql']);
            } catch (MysqlError $e) {
                if ($entry['result'] !== false) {
                    $problems[] = "$where: MySQL error {$e->getCode()} {$e->getMessage()}, MariaDB answered it";
                } elseif ($entry['error'] !== null && $e->getMessage() !== $entry['error']) {
                    $problems[] = "$where: says \"{$e->getMessage()}\", MariaDB said \"{$entry['error']}\"";
                }
                continue;
            } catch (TranslateError $e) {
                $problems[] = "$where: {$e->getMessage()}";
                continue;
            } catch (\RuntimeException $e) {
                $problems[] = "$where: PostgreSQL refused it: " . strtok($e->getMessage(), "\n");
                continue;
            }
            if ($entry['result'] === false) {
                $problems[] = "$where: ran, MariaDB refused it with \"{$entry['error']}\"";
                continue;
            }
            $ran++;
            $t = $result['translation'];
            $outcome = match (true) {
                $t->kind === 'ddl' => true,
                $t->kind === 'select' || $t->kind === 'answer' => count($result['rows']),
                default => $result['affected'],
            };
            if ($outcome !== $entry['result']) {
                $problems[] = "$where: outcome " . json_encode($outcome) . ', MariaDB ' . json_encode($entry['result']);
            }
        }
        $this->assertGreaterThan(1000, $count);
        $this->assertSame([], $problems, count($problems) . " of $count statements differ");
        $this->assertGreaterThan(900, $ran);
    }
}
