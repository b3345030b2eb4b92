<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use PHPUnit\Framework\TestCase;

/**
 * WordPress's own dbDelta() against the translator (dbdelta_twice.php, its own process):
 * it creates WordPress's whole schema, then finds nothing to change (DESCRIBE and SHOW INDEX
 * answer as MySQL would for what it created), applies an upgrade's ALTERs, and again finds
 * nothing to change.
 */
final class DbDeltaTest extends TestCase
{
    public function testDbDeltaCreatesTheSchemaThenFindsNothingToChange(): void
    {
        $out = shell_exec('php ' . escapeshellarg(__DIR__ . '/dbdelta_twice.php') . ' 2>&1');
        $result = json_decode((string) $out, true);
        $this->assertIsArray($result, (string) $out);
        $this->assertCount(18, $result['tables']);
        $this->assertSame(array_map(static fn (string $t): string => "Created table $t", $result['tables']), $result['first']);
        $this->assertSame([], $result['second'], 'a second dbDelta() changes nothing');
        $this->assertSame([], $result['secondRan']);
        $this->assertContains('Added column wp_options.extra', $result['upgrade']);
        $this->assertContains('Added index wp_options KEY `extra` (`extra`,`option_name`(100))', $result['upgrade']);
        $this->assertContains("ALTER TABLE wp_options CHANGE COLUMN `autoload` autoload varchar(30) NOT NULL default 'no'", $result['upgradeRan']);
        $this->assertSame([], $result['afterUpgrade'], 'after the upgrade, nothing more to change');
        $autoload = $result['describe'][3];
        $this->assertSame(['autoload', 'varchar(30)', 'no'], [$autoload['Field'], $autoload['Type'], $autoload['Default']]);
    }
}
