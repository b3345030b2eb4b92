<?php

declare(strict_types=1);

require_once __DIR__ . '/bootstrap.php';

use Berth\Pg\Ast;
use Berth\Pg\Parser;
use PHPUnit\Framework\TestCase;

/** Every statement WordPress 6.1.9 sent in the captured flows parses, into the right kind. */
final class CorpusTest extends TestCase
{
    /** @return string[] corpus files present: the repository's copy and the shared one */
    private static function corpora(): array
    {
        return array_values(array_filter([
            __DIR__ . '/../data/wordpress-6.1.9-queries.jsonl',
            '/work/shared/data/wordpress-6.1.9-queries.jsonl',
        ], 'is_file'));
    }

    public function testEveryStatementParses(): void
    {
        $corpora = self::corpora();
        $this->assertNotEmpty($corpora, 'no corpus file found');
        $parser = new Parser();
        $kinds = [
            'SELECT' => Ast\Select::class, 'INSERT' => Ast\Insert::class, 'REPLACE' => Ast\Insert::class,
            'UPDATE' => Ast\Update::class, 'DELETE' => Ast\Delete::class, 'CREATE' => Ast\CreateTable::class,
            'SHOW' => Ast\Show::class, 'DESCRIBE' => Ast\Describe::class, 'SET' => Ast\Set::class,
        ];
        $failures = [];
        $total = 0;
        foreach ($corpora as $file) {
            foreach (file($file, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $n => $line) {
                $sql = json_decode($line, true, 512, JSON_THROW_ON_ERROR)['sql'];
                $total++;
                try {
                    $statement = $parser->parse($sql);
                } catch (\Berth\Pg\ParseError $e) {
                    $failures[] = basename($file) . ':' . ($n + 1) . ': ' . $e->getMessage();
                    continue;
                }
                $this->assertSame($sql, $statement->sql);
                $first = strtoupper(strtok(ltrim($sql, " \t\n("), " \t\n("));
                if (isset($kinds[$first])) {
                    $this->assertInstanceOf($kinds[$first], $statement, $sql);
                }
                if ($statement instanceof Ast\Select) {
                    foreach ($statement->columns as $item) {
                        // The text is the item's exact source at its offset.
                        $this->assertSame($item->text, substr($sql, $item->pos, strlen($item->text)));
                    }
                }
            }
        }
        $this->assertSame([], $failures);
        $this->assertGreaterThanOrEqual(1281, $total);
    }
}
