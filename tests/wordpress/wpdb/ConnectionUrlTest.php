<?php

declare(strict_types=1);

namespace Berth\Pg\Tests;

use Berth\Pg\ConnectionUrl;
use PHPUnit\Framework\TestCase;

final class ConnectionUrlTest extends TestCase
{
    public function testEveryPartBecomesAQuotedKeyword(): void
    {
        $url = ConnectionUrl::parse("postgresql://p_x:a%27b%5C%20c%3D1@db.internal:6543/p_x?sslmode=require&application_name=my+site");
        $this->assertSame([
            'host' => 'db.internal', 'port' => '6543', 'user' => 'p_x', 'password' => "a'b\\ c=1",
            'dbname' => 'p_x', 'sslmode' => 'require', 'application_name' => 'my site',
        ], $url->params);
        $this->assertSame(
            "host='db.internal' port='6543' user='p_x' password='a\\'b\\\\ c=1' dbname='p_x' sslmode='require' application_name='my site' client_encoding='UTF8'",
            $url->conninfo(['client_encoding' => 'UTF8', 'sslmode' => 'disable'])
        );
        $this->assertSame('p_x', $url->database());
    }

    public function testIpv6AndSocketHosts(): void
    {
        $this->assertSame('::1', ConnectionUrl::parse('postgres://u@[::1]:5432/d')->params['host']);
        $this->assertSame('/run/postgresql', ConnectionUrl::parse('postgresql://u@%2Frun%2Fpostgresql/d')->params['host']);
        $this->assertSame('/tmp/sock', ConnectionUrl::parse('postgresql:///d?host=/tmp/sock')->params['host']);
    }

    public function testAPasswordCannotInjectKeywords(): void
    {
        $url = ConnectionUrl::parse('postgresql://u:x%27%20host%3Devil@h/d');
        $this->assertSame("host='h' user='u' password='x\\' host=evil' dbname='d'", $url->conninfo());
    }

    public function testRefusals(): void
    {
        foreach (['mysql://u@h/d', 'not a url', 'postgresql://u@h/d?bad-key=1'] as $bad) {
            try {
                ConnectionUrl::parse($bad);
                $this->fail("accepted $bad");
            } catch (\InvalidArgumentException $error) {
                $this->assertNotSame('', $error->getMessage());
            }
        }
    }
}
